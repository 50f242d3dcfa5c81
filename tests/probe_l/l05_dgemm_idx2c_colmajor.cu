// style: cuBLAS-manual IDX2C(i,j,ld) column-major macro (Fortran heritage) in a hand-written DGEMM, double precision, separate lda/ldb/ldc larger than the row counts, row index i on threadIdx.x so column-major C is written coalesced, host fills with IDX2C too
// launch: grid cdiv(m, 32), cdiv(n, 8) block 32, 8
// sizes: m=67 n=45 k=37 lda=69 ldb=41 ldc=71
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))

// C(m x n) = A(m x k) * B(k x n), all column-major with leading dimensions
__global__ void dgemm_colmajor(int m, int n, int k,
                               const double *A, int lda,
                               const double *B, int ldb,
                               double *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < m && j < n) {
        double cij = 0.0;
        for (int l = 0; l < k; l++)
            cij += A[IDX2C(i, l, lda)] * B[IDX2C(l, j, ldb)];
        C[IDX2C(i, j, ldc)] = cij;
    }
}

int main(void)
{
    const int m = 67, n = 45, k = 37;
    const int lda = 69, ldb = 41, ldc = 71;
    double *a = (double *)calloc((size_t)lda * k, sizeof(double));
    double *b = (double *)calloc((size_t)ldb * n, sizeof(double));
    double *c = (double *)calloc((size_t)ldc * n, sizeof(double));

    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++)
            a[IDX2C(i, j, lda)] = (double)(i * k + j + 1) / (m * k);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < k; i++)
            b[IDX2C(i, j, ldb)] = (double)((i + 2 * j) % 9) - 4.0;

    double *devA, *devB, *devC;
    cudaMalloc((void **)&devA, (size_t)lda * k * sizeof(double));
    cudaMalloc((void **)&devB, (size_t)ldb * n * sizeof(double));
    cudaMalloc((void **)&devC, (size_t)ldc * n * sizeof(double));
    cudaMemcpy(devA, a, (size_t)lda * k * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(devB, b, (size_t)ldb * n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemset(devC, 0, (size_t)ldc * n * sizeof(double));

    dim3 dimBlock(32, 8);
    dim3 dimGrid((m + dimBlock.x - 1) / dimBlock.x, (n + dimBlock.y - 1) / dimBlock.y);
    dgemm_colmajor<<<dimGrid, dimBlock>>>(m, n, k, devA, lda, devB, ldb, devC, ldc);
    cudaMemcpy(c, devC, (size_t)ldc * n * sizeof(double), cudaMemcpyDeviceToHost);

    double maxerr = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0.0;
            for (int l = 0; l < k; l++) s += a[IDX2C(i, l, lda)] * b[IDX2C(l, j, ldb)];
            maxerr = fmax(maxerr, fabs(s - c[IDX2C(i, j, ldc)]));
        }
    printf("dgemm max error = %.3e\n", maxerr);

    cudaFree(devA); cudaFree(devB); cudaFree(devC);
    free(a); free(b); free(c);
    return 0;
}
