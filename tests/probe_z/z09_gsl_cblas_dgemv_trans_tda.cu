// style: GSL cblas port (source_gemv_r.h with `#define BASE double`) of gsl_blas_dgemv(CblasTrans, alpha, A, x, beta, y) - gsl_matrix row stride `tda` passed as lda, size_t M/N/lda, one thread per output column j computing temp += X[i] * A[lda * i + j] down the rows, BLAS semantics y = alpha*temp + beta*y with Y not read when beta == 0, early return past N; host main builds a padded gsl_matrix-like block and checks against the CPU loop
// launch: grid cdiv(N, 128) block 128
// sizes: M=73 N=59 lda=61 alpha=1.5 beta=0.5
// expect: column
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define BASE double

/* y := alpha * A^T * x + beta * y,  A is M x N (row-major, row stride lda >= N) */
__global__ void cblas_dgemv_T_kernel(const size_t M, const size_t N,
                                     const BASE alpha, const BASE *A, const size_t lda,
                                     const BASE *X, const BASE beta, BASE *Y)
{
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= N)
        return;

    BASE temp = 0.0;
    size_t i;
    for (i = 0; i < M; i++) {
        temp += X[i] * A[lda * i + j];
    }

    if (beta == 0.0) {
        Y[j] = alpha * temp;
    } else {
        Y[j] = alpha * temp + beta * Y[j];
    }
}

typedef struct {
    size_t size1;  /* rows */
    size_t size2;  /* cols */
    size_t tda;    /* physical row length */
    double *data;
} host_matrix;

int main(void)
{
    host_matrix A;
    A.size1 = 73; A.size2 = 59; A.tda = 61;
    A.data = (double *)malloc(A.size1 * A.tda * sizeof(double));
    double *x = (double *)malloc(A.size1 * sizeof(double));
    double *y = (double *)malloc(A.size2 * sizeof(double));
    double *yref = (double *)malloc(A.size2 * sizeof(double));
    const double alpha = 1.5, beta = 0.5;

    for (size_t i = 0; i < A.size1 * A.tda; i++) A.data[i] = (double)((i * 7919) % 257) / 257.0 - 0.5;
    for (size_t i = 0; i < A.size1; i++) x[i] = (double)(i % 13) - 6.0;
    for (size_t j = 0; j < A.size2; j++) y[j] = yref[j] = 0.25 * (double)j;

    for (size_t j = 0; j < A.size2; j++) {
        double t = 0.0;
        for (size_t i = 0; i < A.size1; i++) t += x[i] * A.data[A.tda * i + j];
        yref[j] = alpha * t + beta * yref[j];
    }

    double *dA, *dx, *dy;
    cudaMalloc((void **)&dA, A.size1 * A.tda * sizeof(double));
    cudaMalloc((void **)&dx, A.size1 * sizeof(double));
    cudaMalloc((void **)&dy, A.size2 * sizeof(double));
    cudaMemcpy(dA, A.data, A.size1 * A.tda * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, A.size1 * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, A.size2 * sizeof(double), cudaMemcpyHostToDevice);

    unsigned int blocks = (unsigned int)((A.size2 + 127) / 128);
    cblas_dgemv_T_kernel<<<blocks, 128>>>(A.size1, A.size2, alpha, dA, A.tda, dx, beta, dy);
    cudaMemcpy(y, dy, A.size2 * sizeof(double), cudaMemcpyDeviceToHost);

    double err = 0.0;
    for (size_t j = 0; j < A.size2; j++) err = fmax(err, fabs(y[j] - yref[j]));
    printf("max err %g %s\n", err, err < 1e-9 ? "PASS" : "FAIL");

    cudaFree(dA); cudaFree(dx); cudaFree(dy);
    free(A.data); free(x); free(y); free(yref);
    return err < 1e-9 ? 0 : 1;
}
