// A "solve" entry point with C linkage launching the kernel (an online judge's style): M x N times N x K.
// expect: A [M, N] in; B [N, K] in; C [M, K] out; grid [cdiv(K, 16), cdiv(M, 16)]; block [16, 16]
#include <cuda_runtime.h>

__global__ void matrix_multiplication_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < K) {
    float sum = 0.0f;
    for (int i = 0; i < N; ++i) sum += A[row * N + i] * B[i * K + col];
    C[row * K + col] = sum;
  }
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 threadsPerBlock(16, 16);
  dim3 blocksPerGrid((K + threadsPerBlock.x - 1) / threadsPerBlock.x, (M + threadsPerBlock.y - 1) / threadsPerBlock.y);
  matrix_multiplication_kernel<<<blocksPerGrid, threadsPerBlock>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
}
