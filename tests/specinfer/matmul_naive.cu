// Naive matrix product, host code with dim3 launch and cudaMalloc of M*K floats.
// expect: A [M, K] in; B [K, N] in; C [M, N] out; grid [cdiv(N, 16), cdiv(M, 16)]; block [16, 16]; host M = 512, N = 256, K = 384
#include <cuda_runtime.h>

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

int main() {
  int M = 512, N = 256, K = 384;
  float *dA, *dB, *dC;
  cudaMalloc((void**)&dA, M * K * sizeof(float));
  cudaMalloc((void**)&dB, K * N * sizeof(float));
  cudaMalloc((void**)&dC, M * N * sizeof(float));
  dim3 block(16, 16);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
  cudaDeviceSynchronize();
  return 0;
}
