// style: llm.c dev/cuda matmul_forward kernel1 (one thread per output, bt on x / oc on y, sqrt_block_size 16) but taking B and T separately and splitting bt into b,t to build inp_bt/out_bt row pointers; weight is PyTorch (OC, C) so this is inp @ weight^T with an optional NULL bias
// launch: grid cdiv(B*T, 16), cdiv(OC, 16) block 16, 16
// sizes: B=3 T=37 C=71 OC=93
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <stddef.h>

// ----------------------------------------------------------------------------
// GPU kernels

// kernel 1: naive kernel, every thread handles one output element, direct global memory access
__global__ void matmul_forward_kernel1(float* out,
                                       const float* inp, const float* weight, const float* bias,
                                       int B, int T, int C, int OC) {
    // out is (B,T,OC). OC is short for "output channels", e.g. OC = 4 * C
    // inp is (B,T,C), weight is (OC, C), bias is (OC)
    // in the naive kernel, every thread handles one element of out
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < B * T && oc < OC) {
        int b = bt / T;
        int t = bt % T;
        const float* inp_bt = inp + b * T * C + t * C;
        const float* wrow = weight + oc * C;
        float* out_bt = out + b * T * OC + t * OC;
        float val = (bias != NULL) ? bias[oc] : 0.0f;
        for (int i = 0; i < C; i++) {
            val += inp_bt[i] * wrow[i];
        }
        out_bt[oc] = val;
    }
}

// ----------------------------------------------------------------------------
// kernel launcher

void matmul_forward1(float* out,
                     const float* inp, const float* weight, const float* bias,
                     int B, int T, int C, int OC,
                     const int sqrt_block_size) {
    // out is (B,T,OC). OC is short for "output channels", e.g. OC = 4 * C
    // inp is (B,T,C), weight is (OC, C), bias is (OC)
    dim3 gridDim((B * T + sqrt_block_size - 1) / sqrt_block_size,
                 (OC + sqrt_block_size - 1) / sqrt_block_size);
    dim3 blockDim(sqrt_block_size, sqrt_block_size);
    matmul_forward_kernel1<<<gridDim, blockDim>>>(out, inp, weight, bias, B, T, C, OC);
}
