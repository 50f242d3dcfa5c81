// style: "C = A^T * B" naive kernel as in course homework (A stored K x M, B stored K x N), with host main
// launch: grid cdiv(N, 32), cdiv(M, 32) block 32, 32
// sizes: M=187 N=229 K=163
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 32

__global__ void matmul_AtB(const float *A, const float *B, float *C, int M, int N, int K)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;   // row of C = column of A
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // column of C
    if (i < M && j < N) {
        float s = 0.f;
        for (int k = 0; k < K; k++)
            s += A[k * M + i] * B[k * N + j];
        C[i * N + j] = s;
    }
}

int main(void)
{
    int M = 187, N = 229, K = 163;
    float *A = (float *)malloc(sizeof(float) * K * M);
    float *B = (float *)malloc(sizeof(float) * K * N);
    float *C = (float *)malloc(sizeof(float) * M * N);
    for (int t = 0; t < K * M; t++) A[t] = (float)(t % 7) / 7.0f;
    for (int t = 0; t < K * N; t++) B[t] = (float)(t % 5) / 5.0f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(float) * K * M);
    cudaMalloc(&dB, sizeof(float) * K * N);
    cudaMalloc(&dC, sizeof(float) * M * N);
    cudaMemcpy(dA, A, sizeof(float) * K * M, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, sizeof(float) * K * N, cudaMemcpyHostToDevice);

    dim3 threads(BLOCK, BLOCK);
    dim3 blocks((N + BLOCK - 1) / BLOCK, (M + BLOCK - 1) / BLOCK);
    matmul_AtB<<<blocks, threads>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(C, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost);
    printf("%f\n", C[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(A); free(B); free(C);
    return 0;
}
