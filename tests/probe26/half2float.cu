// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=160
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cuda_fp16.h>
__global__ void hgemm_f32acc(const __half* A, const __half* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = acc;
  }
}
