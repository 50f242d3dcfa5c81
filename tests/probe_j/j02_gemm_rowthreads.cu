// style: early-CUDA-tutorial GEMM, threadIdx.x along rows (row-major C), beta scaling then global-memory accumulation, with host driver
// launch: grid cdiv(M, 32), cdiv(N, 8) block 32, 8
// sizes: M=187 N=141 K=223 alpha=0.75 beta=2.0
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

__global__ void sgemm_global_acc(const float* __restrict__ A, const float* __restrict__ B,
                                 float* C, int M, int N, int K, float alpha, float beta) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    C[row * N + col] *= beta;
    for (int kk = 0; kk < K; ++kk)
      C[row * N + col] += alpha * A[row * K + kk] * B[kk * N + col];
  }
}

int main() {
  const int M = 187, N = 141, K = 223;
  const float alpha = 0.75f, beta = 2.0f;
  std::vector<float> hA(M * K), hB(K * N), hC(M * N);
  for (auto& v : hA) v = (rand() % 100) / 100.f;
  for (auto& v : hB) v = (rand() % 100) / 100.f;
  for (auto& v : hC) v = 1.f;
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, M * K * sizeof(float)));
  CHECK(cudaMalloc(&dB, K * N * sizeof(float)));
  CHECK(cudaMalloc(&dC, M * N * sizeof(float)));
  CHECK(cudaMemcpy(dA, hA.data(), M * K * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, hB.data(), K * N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, hC.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(32, 8);
  dim3 grid((M + 31) / 32, (N + 7) / 8);
  sgemm_global_acc<<<grid, block>>>(dA, dB, dC, M, N, K, alpha, beta);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hC.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost));
  printf("C[0]=%f C[last]=%f\n", hC[0], hC[M * N - 1]);
  cudaFree(dA); cudaFree(dB); cudaFree(dC);
  return 0;
}
