// style: lecture-notes "register blocking" step after the naive GEMM; each thread owns a 2x2 block of C in named scalars c00 c01 c10 c11, operands fetched into a0 a1 b0 b1 with ternary zero-guards, per-element store guards, host code with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 32), cdiv(M, 32) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void sgemm_reg2x2(const float *A, const float *B, float *C, int M, int N, int K)
{
    const int r0 = 2 * (blockIdx.y * blockDim.y + threadIdx.y);
    const int c0 = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int r1 = r0 + 1;
    const int c1 = c0 + 1;
    if (r0 >= M || c0 >= N) return;

    float c00 = 0.f, c01 = 0.f, c10 = 0.f, c11 = 0.f;
    for (int k = 0; k < K; ++k) {
        const float a0 = A[r0 * K + k];
        const float a1 = (r1 < M) ? A[r1 * K + k] : 0.f;
        const float b0 = B[k * N + c0];
        const float b1 = (c1 < N) ? B[k * N + c1] : 0.f;
        c00 += a0 * b0;
        c01 += a0 * b1;
        c10 += a1 * b0;
        c11 += a1 * b1;
    }
    C[r0 * N + c0] = c00;
    if (c1 < N) C[r0 * N + c1] = c01;
    if (r1 < M) {
        C[r1 * N + c0] = c10;
        if (c1 < N) C[r1 * N + c1] = c11;
    }
}

int main(void)
{
    int M = 67, N = 129, K = 45;
    float *hA = (float *)malloc(sizeof(float) * M * K);
    float *hB = (float *)malloc(sizeof(float) * K * N);
    float *hC = (float *)malloc(sizeof(float) * M * N);
    for (int i = 0; i < M * K; i++) hA[i] = (float)(i % 11) / 11.0f;
    for (int i = 0; i < K * N; i++) hB[i] = (float)(i % 13) / 13.0f;

    float *dA, *dB, *dC;
    cudaMalloc((void **)&dA, sizeof(float) * M * K);
    cudaMalloc((void **)&dB, sizeof(float) * K * N);
    cudaMalloc((void **)&dC, sizeof(float) * M * N);
    cudaMemcpy(dA, hA, sizeof(float) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof(float) * K * N, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + 31) / 32, (M + 31) / 32);
    sgemm_reg2x2<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost);
    printf("C[0]=%f C[M*N-1]=%f\n", hC[0], hC[M * N - 1]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
