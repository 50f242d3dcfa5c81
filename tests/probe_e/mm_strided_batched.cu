// style: reference gemmStridedBatched (cuBLAS-like argument list, row-major, leading dims and batch strides)
// launch: grid cdiv(N, 16), cdiv(M, 16), batchCount block 16, 16
// sizes: M=111 N=143 K=93 alpha=1.5 beta=0.25 lda=93 ldb=143 ldc=143 strideA=10323 strideB=13299 strideC=15873 batchCount=3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

__global__ void gemm_strided_batched_kernel(int M, int N, int K, float alpha,
                                            const float* __restrict__ A, int lda, long long strideA,
                                            const float* __restrict__ B, int ldb, long long strideB,
                                            float beta,
                                            float* __restrict__ C, int ldc, long long strideC,
                                            int batchCount)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int batch = blockIdx.z;
    if (row >= M || col >= N || batch >= batchCount) return;

    const float* Ab = A + batch * strideA;
    const float* Bb = B + batch * strideB;
    float* Cb = C + batch * strideC;

    float acc = 0.0f;
    for (int p = 0; p < K; ++p)
        acc += Ab[row * lda + p] * Bb[p * ldb + col];
    Cb[row * ldc + col] = alpha * acc + beta * Cb[row * ldc + col];
}
