// launch: grid cdiv(M, 32), cdiv(N, 4) block 32, 4
// sizes: M=230 N=190 K=170 alpha=1.5 beta=-0.5 lda=230 ldb=170 ldc=230
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// BLAS-style column-major GEMM template (C = alpha*A*B + beta*C) with IDX2C index macros, cuBLAS-sample flavour; explicit float instantiation
#include <cuda_runtime.h>

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))

template <typename T>
__global__ void gemm_nn_kernel(int M, int N, int K, T alpha,
                               const T* A, int lda,
                               const T* B, int ldb,
                               T beta, T* C, int ldc)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;   // row of C (contiguous in column-major)
    const int j = blockIdx.y * blockDim.y + threadIdx.y;   // column of C
    if (i < M && j < N) {
        T acc = T(0);
        for (int l = 0; l < K; ++l)
            acc += A[IDX2C(i, l, lda)] * B[IDX2C(l, j, ldb)];
        C[IDX2C(i, j, ldc)] = alpha * acc + beta * C[IDX2C(i, j, ldc)];
    }
}

template __global__ void gemm_nn_kernel<float>(int, int, int, float, const float*, int,
                                               const float*, int, float, float*, int);
