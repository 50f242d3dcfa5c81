// style: Rodinia-like standalone .cu: BLOCK_SIZE macro instead of blockDim, bx/by/tx/ty locals, double precision, A stored K x M and read transposed (C = A^T * B), host main
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLOCK_SIZE 16

__global__ void
dgemm_tn(double *C, const double *A, const double *B, int M, int N, int K)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = by * BLOCK_SIZE + ty;   /* row of C == column of A */
    int j = bx * BLOCK_SIZE + tx;   /* column of C */

    if (i < M && j < N) {
        double sum = 0.0;
        for (int k = 0; k < K; k++)
            sum += A[k * M + i] * B[k * N + j];
        C[i * N + j] = sum;
    }
}

int main(int argc, char **argv)
{
    int M = 67, N = 129, K = 45;
    size_t sA = (size_t)K * M * sizeof(double);
    size_t sB = (size_t)K * N * sizeof(double);
    size_t sC = (size_t)M * N * sizeof(double);
    double *hA = (double *)malloc(sA), *hB = (double *)malloc(sB), *hC = (double *)malloc(sC);
    for (int i = 0; i < K * M; i++) hA[i] = (double)(i % 17) / 17.0;
    for (int i = 0; i < K * N; i++) hB[i] = (double)(i % 13) / 13.0 - 0.5;

    double *dA, *dB, *dC;
    cudaMalloc((void **)&dA, sA);
    cudaMalloc((void **)&dB, sB);
    cudaMalloc((void **)&dC, sC);
    cudaMemcpy(dA, hA, sA, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sB, cudaMemcpyHostToDevice);

    dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
    dim3 grid((N + BLOCK_SIZE - 1) / BLOCK_SIZE, (M + BLOCK_SIZE - 1) / BLOCK_SIZE);
    dgemm_tn<<<grid, threads>>>(dC, dA, dB, M, N, K);
    cudaMemcpy(hC, dC, sC, cudaMemcpyDeviceToHost);
    printf("C[0][0] = %f  C[M-1][N-1] = %f\n", hC[0], hC[M * N - 1]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
