// style: "how to optimise SGEMM step by step" lecture, step 2 = register blocking before shared memory: each thread owns a 2x2 patch of C with four scalar accumulators c00..c11, two A and two B values reloaded per k with ternary edge guards, #define MICRO 2, host main
// launch: grid cdiv(N, 32), cdiv(M, 16) block 16, 8
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define MICRO 2
#define BX 16
#define BY 8

__global__ void sgemm_micro2x2(int M, int N, int K, const float *A, const float *B, float *C)
{
    const int col0 = (blockIdx.x * BX + threadIdx.x) * MICRO;
    const int row0 = (blockIdx.y * BY + threadIdx.y) * MICRO;
    const int col1 = col0 + 1;
    const int row1 = row0 + 1;

    if (row0 >= M || col0 >= N)
        return;

    float c00 = 0.f, c01 = 0.f, c10 = 0.f, c11 = 0.f;
    for (int k = 0; k < K; ++k) {
        float a0 = A[row0 * K + k];
        float a1 = (row1 < M) ? A[row1 * K + k] : 0.f;
        float b0 = B[k * N + col0];
        float b1 = (col1 < N) ? B[k * N + col1] : 0.f;
        c00 += a0 * b0;
        c01 += a0 * b1;
        c10 += a1 * b0;
        c11 += a1 * b1;
    }

    C[row0 * N + col0] = c00;
    if (col1 < N) C[row0 * N + col1] = c01;
    if (row1 < M) {
        C[row1 * N + col0] = c10;
        if (col1 < N) C[row1 * N + col1] = c11;
    }
}

int main(void)
{
    const int M = 67, N = 129, K = 45;
    float *A = (float *)malloc(M * K * sizeof(float));
    float *B = (float *)malloc(K * N * sizeof(float));
    float *C = (float *)malloc(M * N * sizeof(float));
    for (int i = 0; i < M * K; i++) A[i] = (float)(rand() % 16) / 8.0f - 1.0f;
    for (int i = 0; i < K * N; i++) B[i] = (float)(rand() % 16) / 8.0f - 1.0f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, M * K * sizeof(float));
    cudaMalloc(&dB, K * N * sizeof(float));
    cudaMalloc(&dC, M * N * sizeof(float));
    cudaMemcpy(dA, A, M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, K * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(BX, BY);
    dim3 grid((N + BX * MICRO - 1) / (BX * MICRO), (M + BY * MICRO - 1) / (BY * MICRO));
    sgemm_micro2x2<<<grid, block>>>(M, N, K, dA, dB, dC);
    cudaMemcpy(C, dC, M * N * sizeof(float), cudaMemcpyDeviceToHost);

    float worst = 0.f;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0.f;
            for (int k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
            worst = fmaxf(worst, fabsf(s - C[i * N + j]));
        }
    printf("worst error %g\n", worst);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(A); free(B); free(C);
    return 0;
}
