// Vector add with a host program: sizes from `const int N`, cudaMalloc byte counts and the launch.
// expect: a [N] in; b [N] in; c [N] out; grid [cdiv(N, 256)]; block [256]; host N = 1048576
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int N = 1 << 20;
  size_t bytes = N * sizeof(float);
  float *d_a, *d_b, *d_c;
  cudaMalloc(&d_a, bytes);
  cudaMalloc(&d_b, bytes);
  cudaMalloc(&d_c, bytes);
  int threads = 256;
  int blocks = (N + threads - 1) / threads;
  vec_add<<<blocks, threads>>>(d_a, d_b, d_c, N);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
