// style: cuBLAS-convention reference SGEMM (column-major, IDX2C macro, lda/ldb/ldc, i = row on x so C is walked down columns)
// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=213 n=171 k=149 alpha=1.25 beta=0.5 lda=217 ldb=151 ldc=219
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))

__global__ void sgemm_ref_colmajor(int m, int n, int k, float alpha,
                                   const float *A, int lda,
                                   const float *B, int ldb,
                                   float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n) {
        float sum = 0.0f;
        for (int l = 0; l < k; ++l)
            sum += A[IDX2C(i, l, lda)] * B[IDX2C(l, j, ldb)];
        C[IDX2C(i, j, ldc)] = alpha * sum + beta * C[IDX2C(i, j, ldc)];
    }
}
