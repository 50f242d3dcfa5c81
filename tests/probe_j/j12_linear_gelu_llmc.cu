// style: llm.c matmul_forward_kernel1-like (bt from threadIdx.x, oc from threadIdx.y), row pointers, exact GELU with erff, host main
// launch: grid cdiv(BT, 8), cdiv(OC, 8) block 8, 8
// sizes: BT=134 C=223 OC=141
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define M_SQRT1_2f 0.70710678118654752440f

// out is (B,T,OC), inp is (B,T,C), weight is (OC,C), bias is (OC)
__global__ void matmul_gelu_forward_kernel(float* out,
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
        out[bt * OC + oc] = 0.5f * val * (1.0f + erff(val * M_SQRT1_2f));
    }
}

float* make_random_float(size_t n) {
    float* p = (float*)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = ((float)rand() / RAND_MAX) * 2.0f - 1.0f;
    return p;
}

int main(int argc, char** argv) {
    int B = 2, T = 67, C = 223, OC = 141;
    int BT = B * T;
    float* inp = make_random_float(BT * C);
    float* weight = make_random_float(OC * C);
    float* bias = make_random_float(OC);
    float* out = (float*)malloc(BT * OC * sizeof(float));

    float *d_inp, *d_weight, *d_bias, *d_out;
    cudaMalloc(&d_inp, BT * C * sizeof(float));
    cudaMalloc(&d_weight, OC * C * sizeof(float));
    cudaMalloc(&d_bias, OC * sizeof(float));
    cudaMalloc(&d_out, BT * OC * sizeof(float));
    cudaMemcpy(d_inp, inp, BT * C * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_weight, weight, OC * C * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_bias, bias, OC * sizeof(float), cudaMemcpyHostToDevice);

    int sqrt_block_size = 8;
    dim3 gridDim((BT + sqrt_block_size - 1) / sqrt_block_size, (OC + sqrt_block_size - 1) / sqrt_block_size);
    dim3 blockDim(sqrt_block_size, sqrt_block_size);
    matmul_gelu_forward_kernel<<<gridDim, blockDim>>>(d_out, d_inp, d_weight, d_bias, BT, C, OC);
    cudaMemcpy(out, d_out, BT * OC * sizeof(float), cudaMemcpyDeviceToHost);
    printf("out[0] = %f\n", out[0]);

    cudaFree(d_inp); cudaFree(d_weight); cudaFree(d_bias); cudaFree(d_out);
    free(inp); free(weight); free(bias); free(out);
    return 0;
}
