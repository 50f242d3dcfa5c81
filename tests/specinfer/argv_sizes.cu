// Sizes from the command line with a default: `argc > 1 ? atoi(argv[1]) : 8192`.
// expect: dst [n] out; src [n] in; host n = 8192
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void copy_scaled(float* dst, const float* src, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = k * src[i];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8192;
  float *src, *dst;
  cudaMalloc(&src, n * sizeof(float));
  cudaMalloc(&dst, n * sizeof(float));
  copy_scaled<<<(n + 255) / 256, 256>>>(dst, src, 3.0f, n);
  return 0;
}
