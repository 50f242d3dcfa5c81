// style: early CUDA-by-example style port that keeps math convention (x = row, y = column); threadIdx.x/blockIdx.x mapped to the row i and threadIdx.y/blockIdx.y to the column j of a row-major C, so consecutive threads stride by N in C and in A (uncoalesced), plain int sizes M/N/K, host main with cudaMalloc/cudaMemcpy and cudaGetLastError
// launch: grid cdiv(M, 16), cdiv(N, 16) block 16, 16
// sizes: M=67 N=93 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void matMulXY(const float *A, const float *B, float *C, int M, int N, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   /* row    */
    int j = blockIdx.y * blockDim.y + threadIdx.y;   /* column */

    if (i < M && j < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++)
            sum += A[i * K + k] * B[k * N + j];
        C[i * N + j] = sum;
    }
}

int main(int argc, char **argv)
{
    int M = 67, N = 93, K = 45;
    float *A = (float *)malloc(M * K * sizeof(float));
    float *B = (float *)malloc(K * N * sizeof(float));
    float *C = (float *)malloc(M * N * sizeof(float));
    for (int t = 0; t < M * K; t++) A[t] = (float)rand() / RAND_MAX;
    for (int t = 0; t < K * N; t++) B[t] = (float)rand() / RAND_MAX;

    float *dA, *dB, *dC;
    cudaMalloc((void **)&dA, M * K * sizeof(float));
    cudaMalloc((void **)&dB, K * N * sizeof(float));
    cudaMalloc((void **)&dC, M * N * sizeof(float));
    cudaMemcpy(dA, A, M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, K * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 threadsPerBlock(16, 16);
    dim3 numBlocks((M + threadsPerBlock.x - 1) / threadsPerBlock.x,
                   (N + threadsPerBlock.y - 1) / threadsPerBlock.y);
    matMulXY<<<numBlocks, threadsPerBlock>>>(dA, dB, dC, M, N, K);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaMemcpy(C, dC, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    printf("C[0][0] = %f\n", C[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(A); free(B); free(C);
    return 0;
}
