// style: hand-written fallback for cublasSgemmStridedBatched (row-major) used when the library is unavailable: long long strideA/strideB/strideC between batches plus lda/ldb/ldc passed as parameters, one flat 1-D thread index decomposed with / and % into (batch, row, col), alpha/beta
// launch: grid cdiv(batchCount * M * N, 128) block 128
// sizes: M=13 N=15 K=11 lda=11 ldb=15 ldc=15 strideA=149 strideB=167 strideC=197 batchCount=3 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void gemm_strided_batched_naive(int M, int N, int K, float alpha,
                                           const float *A, int lda, long long strideA,
                                           const float *B, int ldb, long long strideB,
                                           float beta,
                                           float *C, int ldc, long long strideC,
                                           int batchCount)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int total = batchCount * M * N;
    if (tid >= total) return;

    int batch = tid / (M * N);
    int rem = tid % (M * N);
    int row = rem / N;
    int col = rem % N;

    const float *Ab = A + batch * strideA;
    const float *Bb = B + batch * strideB;
    float *Cb = C + batch * strideC;

    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += Ab[row * lda + k] * Bb[k * ldb + col];

    Cb[row * ldc + col] = alpha * sum + beta * Cb[row * ldc + col];
}

void gemm_strided_batched(int M, int N, int K, float alpha,
                          const float *A, int lda, long long strideA,
                          const float *B, int ldb, long long strideB,
                          float beta, float *C, int ldc, long long strideC,
                          int batchCount, cudaStream_t stream)
{
    int total = batchCount * M * N;
    int threads = 128;
    int blocks = (total + threads - 1) / threads;
    gemm_strided_batched_naive<<<blocks, threads, 0, stream>>>(M, N, K, alpha, A, lda, strideA,
                                                               B, ldb, strideB, beta, C, ldc,
                                                               strideC, batchCount);
}
