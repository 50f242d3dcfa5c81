// style: int8 quantized GEMM from an inference hobby repo: A (M x K) and B^T (N x K) int8 packed 4 per int32 word, __dp4a dot products, int32 output (K multiple of 4)
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=187 N=141 K=224
// expect: matmul-tiles|matmul-wmma
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>

// A  : M rows, each K int8 values packed as K/4 int32 words
// Bt : N rows (B transposed), each K int8 values packed as K/4 int32 words
// C  : M x N int32, C[i][j] = sum_k A[i][k] * B[k][j]
__global__ void gemm_s8s8s32_dp4a(const int *__restrict__ A,
                                  const int *__restrict__ Bt,
                                  int *__restrict__ C,
                                  int M, int N, int K)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    const int K4 = K >> 2;                 // words per row
    const int *a = A + (size_t)row * K4;
    const int *b = Bt + (size_t)col * K4;

    int acc = 0;
    for (int w = 0; w < K4; ++w)
        acc = __dp4a(a[w], b[w], acc);     // 4 signed int8 MACs

    C[(size_t)row * N + col] = acc;
}

int main()
{
    const int M = 187, N = 141, K = 224;   // K % 4 == 0
    int8_t *hA = (int8_t *)malloc(M * K), *hBt = (int8_t *)malloc(N * K);
    int *hC = (int *)malloc(sizeof(int) * M * N);
    for (int i = 0; i < M * K; ++i) hA[i] = (int8_t)(rand() % 255 - 127);
    for (int i = 0; i < N * K; ++i) hBt[i] = (int8_t)(rand() % 255 - 127);

    int *dA, *dBt, *dC;
    cudaMalloc(&dA, M * K);                 // same bytes, viewed as int32 words
    cudaMalloc(&dBt, N * K);
    cudaMalloc(&dC, sizeof(int) * M * N);
    cudaMemcpy(dA, hA, M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dBt, hBt, N * K, cudaMemcpyHostToDevice);

    dim3 blk(16, 16), grd((N + 15) / 16, (M + 15) / 16);
    gemm_s8s8s32_dp4a<<<grd, blk>>>(dA, dBt, dC, M, N, K);
    cudaMemcpy(hC, dC, sizeof(int) * M * N, cudaMemcpyDeviceToHost);

    int ref = 0;
    for (int k = 0; k < K; ++k) ref += (int)hA[42 * K + k] * (int)hBt[17 * K + k];
    printf("C[42][17] = %d ref %d\n", hC[42 * N + 17], ref);

    cudaFree(dA); cudaFree(dBt); cudaFree(dC);
    free(hA); free(hBt); free(hC);
    return 0;
}
