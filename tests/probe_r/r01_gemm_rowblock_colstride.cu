// style: NVIDIA dev-forum "one block per output row" naive GEMM; row = blockIdx.x in 1-D blocks, columns covered by a block-stride loop for (col = threadIdx.x; col < N; col += blockDim.x), col declared before the loop, host main with cudaMalloc/cudaMemcpy
// launch: grid M block 128
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void matmul_row_per_block(const float *A, const float *B, float *C,
                                     int M, int N, int K)
{
    int row = blockIdx.x;
    int col;
    if (row >= M) return;
    for (col = threadIdx.x; col < N; col += blockDim.x) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++)
            sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = sum;
    }
}

int main()
{
    const int M = 67, N = 129, K = 45;
    size_t sa = (size_t)M * K * sizeof(float);
    size_t sb = (size_t)K * N * sizeof(float);
    size_t sc = (size_t)M * N * sizeof(float);
    float *hA = (float *)malloc(sa), *hB = (float *)malloc(sb), *hC = (float *)malloc(sc);
    for (int i = 0; i < M * K; i++) hA[i] = (float)(i % 7) * 0.25f;
    for (int i = 0; i < K * N; i++) hB[i] = (float)(i % 5) - 2.0f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, sa);
    cudaMalloc(&dB, sb);
    cudaMalloc(&dC, sc);
    cudaMemcpy(dA, hA, sa, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sb, cudaMemcpyHostToDevice);

    matmul_row_per_block<<<M, 128>>>(dA, dB, dC, M, N, K);
    cudaDeviceSynchronize();
    cudaMemcpy(hC, dC, sc, cudaMemcpyDeviceToHost);
    printf("C[0]=%f C[last]=%f\n", hC[0], hC[M * N - 1]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
