#include <cstdio>
#include <cuda_runtime.h>
#include KFILE
int main() {
  const int N = 1024, C = 50257;
  float *in, *out; cudaMalloc(&in, sizeof(float) * N * C); cudaMalloc(&out, sizeof(float) * N * C);
  cudaMemset(in, 0, sizeof(float) * N * C);
  size_t sh = SHARED;
  cudaFuncSetAttribute(softmax_forward, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) {
    cudaEventRecord(a);
    softmax_forward<<<GRID, BLOCK, sh>>>(out, in, N, C);
    cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); printf("run %d: %.1f us %s\n", i, ms * 1e3, cudaGetErrorString(cudaGetLastError()));
  }
  return 0;
}
