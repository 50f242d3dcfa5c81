// style: llm.c matmul_forward_kernel1 -- out(BT,OC) = inp(BT,C) . weight(OC,C)^T, x index is the row, bias + ReLU in the store via ternaries
// launch: grid cdiv(BT, 8), cdiv(OC, 32) block 8, 32
// sizes: BT=67 C=45 OC=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// inp is (B,T,C), weight is (OC, C), bias is (OC); out is (B,T,OC)
__global__ void matmul_bias_relu_kernel1(float* out,
                                         const float* inp, const float* weight, const float* bias,
                                         int BT, int C, int OC) {
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        float val = (bias != NULL) ? bias[oc] : 0.0f;
        const float* wrow = weight + oc * C;
        const float* inp_bt = inp + bt * C;
        for (int i = 0; i < C; i++) {
            val += inp_bt[i] * wrow[i];
        }
        out[bt * OC + oc] = val > 0.0f ? val : 0.0f;
    }
}
