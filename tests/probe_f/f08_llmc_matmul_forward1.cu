// style: karpathy/llm.c dev/cuda matmul_forward_kernel1 (naive, bt from threadIdx.x, out = inp @ weight^T + bias)
// launch: grid cdiv(BT, 16), cdiv(OC, 16) block 16, 16
// sizes: BT=195 C=150 OC=231
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

template<class T>
__host__ __device__ T ceil_div(T dividend, T divisor) {
    return (dividend + divisor - 1) / divisor;
}

// kernel 1 is the most naive matmul kernel
__global__ void matmul_forward_kernel1(float* out,
                                       const float* inp, const float* weight, const float* bias,
                                       int BT, int C, int OC) {
    // out is (B,T,OC). OC is short for "output channels", e.g. OC = 4 * C
    // inp is (B,T,C), weight is (OC, C), bias is (OC)
    // in the naive kernel, every thread handles one element of out
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        float val = (bias != NULL) ? bias[oc] : 0.0f;
        const float* wrow = weight + oc * C;
        const float* inp_bt = inp + bt * C;
        for (int i = 0; i < C; i++) {
            val += inp_bt[i] * wrow[i];
        }
        out[bt * OC + oc] = val;
    }
}

// kernel 1 is the most naive matmul kernel
void matmul_forward1(float* out,
                     const float* inp, const float* weight, const float* bias,
                     int B, int T, int C, int OC,
                     const int sqrt_block_size) {
    dim3 gridDim(ceil_div(B * T, sqrt_block_size), ceil_div(OC, sqrt_block_size));
    dim3 blockDim(sqrt_block_size, sqrt_block_size);
    matmul_forward_kernel1<<<gridDim, blockDim>>>(out, inp, weight, bias, B*T, C, OC);
}

int main() {
    int B = 3, T = 65, C = 150, OC = 231;   // BT = 195
    float *d_out, *d_inp, *d_weight, *d_bias;
    cudaMalloc(&d_out, B * T * OC * sizeof(float));
    cudaMalloc(&d_inp, B * T * C * sizeof(float));
    cudaMalloc(&d_weight, OC * C * sizeof(float));
    cudaMalloc(&d_bias, OC * sizeof(float));
    cudaMemset(d_inp, 0, B * T * C * sizeof(float));
    cudaMemset(d_weight, 0, OC * C * sizeof(float));
    cudaMemset(d_bias, 0, OC * sizeof(float));
    matmul_forward1(d_out, d_inp, d_weight, d_bias, B, T, C, OC, 16);
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaFree(d_out); cudaFree(d_inp); cudaFree(d_weight); cudaFree(d_bias);
    return 0;
}
