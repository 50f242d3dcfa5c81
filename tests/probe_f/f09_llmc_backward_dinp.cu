// style: llm.c matmul_backward CPU reference ported naively to CUDA: dinp = dout @ weight (one thread per dinp element)
// launch: grid cdiv(C, 32), cdiv(BT, 8) block 32, 8
// sizes: BT=179 C=134 OC=211
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

// dout is (B,T,OC), weight is (OC,C), dinp is (B,T,C); gradients accumulate
__global__ void matmul_backward_dinp_kernel(float* dinp, const float* dout, const float* weight,
                                            int BT, int C, int OC) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int bt = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && c < C) {
        const float* dout_bt = dout + bt * OC;
        float sum = 0.0f;
        for (int o = 0; o < OC; o++) {
            float d = dout_bt[o];
            sum += weight[o * C + c] * d;
        }
        dinp[bt * C + c] += sum;
    }
}
