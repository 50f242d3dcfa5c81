// style: siboehm SGEMM_CUDA kernel 1 (naive; x indexes rows of C, alpha/beta epilogue)
// launch: grid cdiv(M, 32), cdiv(N, 32) block 32, 32
// sizes: M=301 N=257 K=199 alpha=1.0 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

/*
Matrix sizes:
MxK * KxN = MxN
*/
__global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A,
                            const float *B, float beta, float *C) {
  // compute position in C that this thread is responsible for
  const uint x = blockIdx.x * blockDim.x + threadIdx.x;
  const uint y = blockIdx.y * blockDim.y + threadIdx.y;

  // `if` condition is necessary for when M or N aren't multiples of 32.
  if (x < M && y < N) {
    float tmp = 0.0;
    for (int i = 0; i < K; ++i) {
      tmp += A[x * K + i] * B[i * N + y];
    }
    // C = α*(A@B)+β*C
    C[x * N + y] = alpha * tmp + beta * C[x * N + y];
  }
}
