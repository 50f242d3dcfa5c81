// style: cuBLAS-docs IDX2C column-major macro reused in a hand-written "my_sgemm" (BLAS argument order m,n,k,alpha,A,lda,B,ldb,beta,C,ldc); #define index macros, alpha/beta epilogue, i from threadIdx.x runs down a column
// launch: grid cdiv(m, 32), cdiv(n, 8) block 32, 8
// sizes: m=67 n=45 k=129 lda=67 ldb=129 ldc=67 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))
#define A_(i, j) A[IDX2C(i, j, lda)]
#define B_(i, j) B[IDX2C(i, j, ldb)]
#define C_(i, j) C[IDX2C(i, j, ldc)]

/* C := alpha * A * B + beta * C, column-major, no transposes */
__global__ void my_sgemm_nn(int m, int n, int k,
                            float alpha,
                            const float *A, int lda,
                            const float *B, int ldb,
                            float beta,
                            float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   /* row of C */
    int j = blockIdx.y * blockDim.y + threadIdx.y;   /* column of C */

    if (i >= m || j >= n)
        return;

    float acc = 0.f;
    for (int l = 0; l < k; ++l)
        acc += A_(i, l) * B_(l, j);

    if (beta == 0.f)
        C_(i, j) = alpha * acc;
    else
        C_(i, j) = alpha * acc + beta * C_(i, j);
}
