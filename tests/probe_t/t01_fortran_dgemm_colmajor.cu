// style: hand port of reference BLAS DGEMM (Fortran, column-major) to CUDA; 1-based index macros A(i,j)/B(i,j)/C(i,j) over a/b/c with lda/ldb/ldc, i from threadIdx.x + 1, Fortran-style loop variable l declared at top with 1..k inclusive bounds, temp = temp + ..., beta == 0 branch, double precision, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(m, 32), cdiv(n, 8) block 32, 8
// sizes: m=67 n=93 k=45 lda=67 ldb=45 ldc=67 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define A(i,j) a[((j)-1)*lda + (i)-1]
#define B(i,j) b[((j)-1)*ldb + (i)-1]
#define C(i,j) c[((j)-1)*ldc + (i)-1]

/*
 *  C := alpha*A*B + beta*C,   A is m x k, B is k x n, C is m x n
 *  (TRANSA = 'N', TRANSB = 'N')
 */
__global__ void dgemm_nn(int m, int n, int k, double alpha,
                         const double *a, int lda,
                         const double *b, int ldb,
                         double beta, double *c, int ldc)
{
    int i, j, l;
    double temp;

    i = blockIdx.x*blockDim.x + threadIdx.x + 1;
    j = blockIdx.y*blockDim.y + threadIdx.y + 1;
    if (i > m || j > n) return;

    temp = 0.0;
    for (l = 1; l <= k; l++) {
        temp = temp + A(i,l)*B(l,j);
    }
    if (beta == 0.0) {
        C(i,j) = alpha*temp;
    } else {
        C(i,j) = alpha*temp + beta*C(i,j);
    }
}

int main(void)
{
    int m = 67, n = 93, k = 45;
    int lda = m, ldb = k, ldc = m;
    double alpha = 1.5, beta = 0.5;
    double *ha, *hb, *hc;
    double *da, *db, *dc;
    int i;

    ha = (double *)malloc(sizeof(double)*lda*k);
    hb = (double *)malloc(sizeof(double)*ldb*n);
    hc = (double *)malloc(sizeof(double)*ldc*n);
    for (i = 0; i < lda*k; i++) ha[i] = (double)(i % 7) * 0.25;
    for (i = 0; i < ldb*n; i++) hb[i] = (double)(i % 5) * 0.5 - 1.0;
    for (i = 0; i < ldc*n; i++) hc[i] = 1.0;

    cudaMalloc((void **)&da, sizeof(double)*lda*k);
    cudaMalloc((void **)&db, sizeof(double)*ldb*n);
    cudaMalloc((void **)&dc, sizeof(double)*ldc*n);
    cudaMemcpy(da, ha, sizeof(double)*lda*k, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, sizeof(double)*ldb*n, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, hc, sizeof(double)*ldc*n, cudaMemcpyHostToDevice);

    dim3 threads(32, 8);
    dim3 grid((m + 31)/32, (n + 7)/8);
    dgemm_nn<<<grid, threads>>>(m, n, k, alpha, da, lda, db, ldb, beta, dc, ldc);
    cudaDeviceSynchronize();

    cudaMemcpy(hc, dc, sizeof(double)*ldc*n, cudaMemcpyDeviceToHost);
    printf("C(1,1) = %f  C(m,n) = %f\n", hc[0], hc[(n-1)*ldc + m-1]);

    cudaFree(da); cudaFree(db); cudaFree(dc);
    free(ha); free(hb); free(hc);
    return 0;
}
