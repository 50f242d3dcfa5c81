// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=128 N=256 K=64
// expect: matmul-tiles|matmul-wmma|matmul-library
#include <cuda_fp16.h>
// fp16 operands, fp32 sum, fp16 result
__global__ void hgemm_naive(const __half* A, const __half* B, __half* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc);
  }
}
