// style: BLAS-reference / ulmBLAS-style naive SGEMM with lda/ldb/ldc and function-like accessor macros A(i,j); C is scaled by beta then accumulated in place in global memory
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45 alpha=1.5 lda=45 ldb=129 beta=-0.5 ldc=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

#define A(i, j) A[(i) * lda + (j)]
#define B(i, j) B[(i) * ldb + (j)]
#define C(i, j) C[(i) * ldc + (j)]

// C := alpha * A * B + beta * C   (row-major; A is M x K, B is K x N, C is M x N)
__global__ void sgemm_naive(int M, int N, int K, float alpha,
                            const float *A, int lda,
                            const float *B, int ldb,
                            float beta, float *C, int ldc)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M || j >= N)
        return;

    C(i, j) *= beta;
    for (int p = 0; p < K; ++p)
        C(i, j) += alpha * A(i, p) * B(p, j);
}

#undef A
#undef B
#undef C
