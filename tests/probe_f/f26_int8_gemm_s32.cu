// style: naive int8 GEMM reference (int8 A/B, int32 accumulate and output), as in quantization repos' correctness kernels
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=211 N=173 K=147
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void gemm_s8s8s32_naive(const int8_t *A, const int8_t *B, int32_t *C,
                                   int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    int32_t acc = 0;
    for (int k = 0; k < K; ++k) {
        acc += static_cast<int32_t>(A[row * K + k]) * static_cast<int32_t>(B[k * N + col]);
    }
    C[row * N + col] = acc;
}

int main()
{
    const int M = 211, N = 173, K = 147;
    int8_t *hA = (int8_t *)malloc(M * K), *hB = (int8_t *)malloc(K * N);
    int32_t *hC = (int32_t *)malloc(M * N * sizeof(int32_t));
    for (int i = 0; i < M * K; ++i) hA[i] = (int8_t)(rand() % 255 - 127);
    for (int i = 0; i < K * N; ++i) hB[i] = (int8_t)(rand() % 255 - 127);

    int8_t *dA, *dB;
    int32_t *dC;
    cudaMalloc(&dA, M * K);
    cudaMalloc(&dB, K * N);
    cudaMalloc(&dC, M * N * sizeof(int32_t));
    cudaMemcpy(dA, hA, M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, K * N, cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((N + 31) / 32, (M + 7) / 8);
    gemm_s8s8s32_naive<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(hC, dC, M * N * sizeof(int32_t), cudaMemcpyDeviceToHost);
    printf("C[0] = %d\n", hC[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
