// style: scientific-computing port of a Fortran loop nest, double precision, row index on threadIdx.x and output column on threadIdx.y (uncoalesced row-major C), long indices, alpha applied once after a k++ loop into a local
// launch: grid cdiv(M, 32), cdiv(N, 8) block 32, 8
// sizes: M=129 N=67 K=45 alpha=2.0
// expect: matmul-coalesce|matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cuda_runtime.h>

// C(M,N) = alpha * A(M,K) * B(K,N), row-major
__global__ void dgemm_rows_on_x(const double *A, const double *B, double *C,
                                int M, int N, int K, double alpha)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;   // row of C
    long j = blockIdx.y * (long)blockDim.y + threadIdx.y;   // column of C
    if (i < M && j < N) {
        double temp = 0.0;
        for (int k = 0; k < K; k++)
            temp += A[i * K + k] * B[(long)k * N + j];
        C[i * N + j] = alpha * temp;
    }
}
