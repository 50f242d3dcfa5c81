// style: performance-minded library fallback path; per-thread base pointers const float* __restrict__ a_row = A + row*lda and const float* b_col = B + col, reads a_row[k] and b_col[k*ldb], explicit leading dimensions lda/ldb/ldc, size_t-free int math, no host code
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=67 N=129 K=45 lda=45 ldb=129 ldc=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void sgemm_rowptr(int M, int N, int K,
                             const float *__restrict__ A, int lda,
                             const float *__restrict__ B, int ldb,
                             float *__restrict__ C, int ldc)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;

    const float* __restrict__ a_row = A + row * lda;
    const float* b_col = B + col;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += a_row[k] * b_col[k * ldb];
    }
    C[row * ldc + col] = acc;
}
