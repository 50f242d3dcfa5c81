// style: siboehm SGEMM kernel 2 (global memory coalescing, 1-D block, threadIdx.x / BLOCKSIZE)
// launch: grid cdiv(M, 32), cdiv(N, 32) block 1024
// sizes: M=203 N=177 K=149 alpha=1.0 beta=0.25
// template: 32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

template <const uint BLOCKSIZE>
__global__ void sgemm_global_mem_coalesce(int M, int N, int K, float alpha,
                                          const float *A, const float *B,
                                          float beta, float *C) {
  const int cRow = blockIdx.x * BLOCKSIZE + (threadIdx.x / BLOCKSIZE);
  const int cCol = blockIdx.y * BLOCKSIZE + (threadIdx.x % BLOCKSIZE);

  // if statement is necessary to make things work under tile quantization
  if (cRow < M && cCol < N) {
    float tmp = 0.0;
    for (int i = 0; i < K; ++i) {
      tmp += A[cRow * K + i] * B[i * N + cCol];
    }
    C[cRow * N + cCol] = alpha * tmp + beta * C[cRow * N + cCol];
  }
}

void run_sgemm_coalesce(int M, int N, int K, float alpha, float *A, float *B,
                        float beta, float *C) {
  dim3 gridDim(CEIL_DIV(M, 32), CEIL_DIV(N, 32));
  dim3 blockDim(32 * 32);
  sgemm_global_mem_coalesce<32>
      <<<gridDim, blockDim>>>(M, N, K, alpha, A, B, beta, C);
}

int main(int argc, char **argv) {
  int M = 203, N = 177, K = 149;
  float *dA, *dB, *dC;
  cudaMalloc(&dA, sizeof(float) * M * K);
  cudaMalloc(&dB, sizeof(float) * K * N);
  cudaMalloc(&dC, sizeof(float) * M * N);
  cudaMemset(dA, 0, sizeof(float) * M * K);
  cudaMemset(dB, 0, sizeof(float) * K * N);
  cudaMemset(dC, 0, sizeof(float) * M * N);
  run_sgemm_coalesce(M, N, K, 1.0f, dA, dB, 0.25f, dC);
  cudaError_t err = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(err));
  cudaFree(dA); cudaFree(dB); cudaFree(dC);
  return 0;
}
