// style: scientific-code double-precision matrix product with long (64-bit) indices and a scalar alpha, C = alpha * A * B
// launch: grid cdiv(n, 32), cdiv(m, 8) block 32, 8
// sizes: m=187 n=141 k=223 alpha=2.0
// expect: matmul-tiles
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void dgemm_long_idx(const double *A, const double *B, double *C,
                               long m, long n, long k, double alpha)
{
    long i = (long)blockIdx.y * (long)blockDim.y + (long)threadIdx.y;
    long j = (long)blockIdx.x * (long)blockDim.x + (long)threadIdx.x;
    if (i < m && j < n) {
        double s = 0.0;
        for (long p = 0; p < k; ++p)
            s += A[i * k + p] * B[p * n + j];
        C[i * n + j] = alpha * s;
    }
}

int main()
{
    const long m = 187, n = 141, k = 223;
    const double alpha = 2.0;
    double *A, *B, *C;
    // unified memory keeps the example short
    cudaMallocManaged(&A, sizeof(double) * m * k);
    cudaMallocManaged(&B, sizeof(double) * k * n);
    cudaMallocManaged(&C, sizeof(double) * m * n);
    for (long t = 0; t < m * k; ++t) A[t] = 1.0 / (1.0 + (double)(t % 11));
    for (long t = 0; t < k * n; ++t) B[t] = (double)(t % 7) - 3.0;

    dim3 block(32, 8);
    dim3 grid((unsigned)((n + 31) / 32), (unsigned)((m + 7) / 8));
    dgemm_long_idx<<<grid, block>>>(A, B, C, m, n, k, alpha);
    cudaDeviceSynchronize();

    double ref = 0.0;
    for (long p = 0; p < k; ++p) ref += A[10 * k + p] * B[p * n + 20];
    printf("C[10][20] = %.12f  ref = %.12f\n", C[10 * n + 20], alpha * ref);

    cudaFree(A); cudaFree(B); cudaFree(C);
    return 0;
}
