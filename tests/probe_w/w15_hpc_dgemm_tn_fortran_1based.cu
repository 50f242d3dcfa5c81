// style: HPC course port of reference-BLAS DGEMM ('T','N') for a Fortran code: column-major double precision via 1-based A(I,J)/B(I,J)/C(I,J) macros, thread indices shifted by +1, `DO L = 1,K` loop written as for (l = 1; l <= k; ++l), BETA.EQ.ZERO branch in the alpha/beta epilogue, called through an extern "C" trailing-underscore wrapper taking pointers
// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=67 n=45 k=83 alpha=1.5 lda=83 ldb=83 beta=0.5 ldc=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

/* Fortran (column-major, 1-based) element access */
#define A(I,J) a[((J)-1)*(lda) + ((I)-1)]
#define B(I,J) b[((J)-1)*(ldb) + ((I)-1)]
#define C(I,J) c[((J)-1)*(ldc) + ((I)-1)]

/*
 *  Form  C := alpha*A**T*B + beta*C
 */
__global__ void dgemm_tn_kernel(int m, int n, int k, double alpha,
                                const double *a, int lda,
                                const double *b, int ldb,
                                double beta, double *c, int ldc)
{
    int i = blockIdx.x*blockDim.x + threadIdx.x + 1;
    int j = blockIdx.y*blockDim.y + threadIdx.y + 1;
    int l;
    double temp;

    if (i > m || j > n) return;

    temp = 0.0;
    for (l = 1; l <= k; ++l) {
        temp = temp + A(l,i)*B(l,j);
    }
    if (beta == 0.0) {
        C(i,j) = alpha*temp;
    } else {
        C(i,j) = alpha*temp + beta*C(i,j);
    }
}

#undef A
#undef B
#undef C

/* callable from Fortran as: call cuda_dgemm_tn(m, n, k, alpha, a_d, lda, b_d, ldb, beta, c_d, ldc) */
extern "C" void cuda_dgemm_tn_(int *m, int *n, int *k, double *alpha,
                               double **a, int *lda, double **b, int *ldb,
                               double *beta, double **c, int *ldc)
{
    dim3 threads(16, 16);
    dim3 blocks((*m + 15)/16, (*n + 15)/16);
    dgemm_tn_kernel<<<blocks, threads>>>(*m, *n, *k, *alpha, *a, *lda, *b, *ldb, *beta, *c, *ldc);
    cudaDeviceSynchronize();
}
