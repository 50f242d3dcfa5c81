// The host program of kernels/axpy.cuh: #define N, cudaMalloc, the launch.
#include <cuda_runtime.h>
#include "kernels/axpy.cuh"

#define N 100000

int main() {
  float *x, *y;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  axpy<<<(N + 255) / 256, 256>>>(2.0f, x, y, N);
  cudaDeviceSynchronize();
  return 0;
}
