// style: llm.c matmul_backward into weight, naive CUDA port: dweight[o][i] += sum_{b,t} dout[b,t,o] * inp[b,t,i]
// launch: grid cdiv(C, 16), cdiv(OC, 16) block 16, 16
// sizes: B=3 T=61 C=142 OC=197
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

__global__ void matmul_backward_dweight_kernel(float* dweight,
                                               const float* dout, const float* inp,
                                               int B, int T, int C, int OC) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // input channel
    int o = blockIdx.y * blockDim.y + threadIdx.y;   // output channel
    if (o < OC && i < C) {
        float* dwrow = dweight + o * C;
        float sum = 0.0f;
        for (int b = 0; b < B; b++) {
            for (int t = 0; t < T; t++) {
                const float* dout_bt = dout + b * T * OC + t * OC;
                const float* inp_bt = inp + b * T * C + t * C;
                float d = dout_bt[o];
                sum += inp_bt[i] * d;
            }
        }
        dwrow[i] += sum;
    }
}
