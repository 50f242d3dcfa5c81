// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=256 N=384 K=128
// expect: matmul-tiles|matmul-wmma|matmul-library
// fp16 GEMM summed in half with __hfma
#include <cuda_fp16.h>
__global__ void hgemm(const __half* A, const __half* B, __half* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    __half acc = __float2half(0.0f);
    for (int k = 0; k < K; ++k) acc = __hfma(A[row * K + k], B[k * N + col], acc);
    C[row * N + col] = acc;
  }
}
