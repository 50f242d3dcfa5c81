// style: mixed-precision homework: __nv_bfloat16 inputs/outputs, float accumulation through __bfloat162float, result rounded with __float2bfloat16
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=187 N=141 K=223 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

// C = alpha * A * B + beta * C; A (M x K), B (K x N), C (M x N), row-major bf16
__global__ void gemm_bf16_f32acc(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                                 __nv_bfloat16 *C, int M, int N, int K,
                                 float alpha, float beta)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            float a = __bfloat162float(A[row * K + k]);
            float b = __bfloat162float(B[k * N + col]);
            acc += a * b;
        }
        float c_old = __bfloat162float(C[row * N + col]);
        C[row * N + col] = __float2bfloat16(alpha * acc + beta * c_old);
    }
}

int main()
{
    const int M = 187, N = 141, K = 223;
    const float alpha = 1.5f, beta = 0.5f;
    __nv_bfloat16 *hA = (__nv_bfloat16 *)malloc(sizeof(__nv_bfloat16) * M * K);
    __nv_bfloat16 *hB = (__nv_bfloat16 *)malloc(sizeof(__nv_bfloat16) * K * N);
    __nv_bfloat16 *hC = (__nv_bfloat16 *)malloc(sizeof(__nv_bfloat16) * M * N);
    for (int i = 0; i < M * K; ++i) hA[i] = __float2bfloat16((float)(rand() % 17 - 8) / 8.0f);
    for (int i = 0; i < K * N; ++i) hB[i] = __float2bfloat16((float)(rand() % 17 - 8) / 8.0f);
    for (int i = 0; i < M * N; ++i) hC[i] = __float2bfloat16(1.0f);

    __nv_bfloat16 *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(__nv_bfloat16) * M * K);
    cudaMalloc(&dB, sizeof(__nv_bfloat16) * K * N);
    cudaMalloc(&dC, sizeof(__nv_bfloat16) * M * N);
    cudaMemcpy(dA, hA, sizeof(__nv_bfloat16) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof(__nv_bfloat16) * K * N, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, sizeof(__nv_bfloat16) * M * N, cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    gemm_bf16_f32acc<<<grid, block>>>(dA, dB, dC, M, N, K, alpha, beta);
    cudaMemcpy(hC, dC, sizeof(__nv_bfloat16) * M * N, cudaMemcpyDeviceToHost);

    float ref = 0.0f;
    for (int k = 0; k < K; ++k) ref += __bfloat162float(hA[5 * K + k]) * __bfloat162float(hB[k * N + 9]);
    printf("C[5][9] = %f ref %f\n", __bfloat162float(hC[5 * N + 9]), alpha * ref + beta);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
