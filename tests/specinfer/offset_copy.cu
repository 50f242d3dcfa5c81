// An offset into the source: the kernel reads x[i + offset]; the host passes a small offset.
// expect: y [n] out; x [n + offset] in; host n = 20000, offset = 7
#include <cuda_runtime.h>

__global__ void shift_copy(float* y, const float* x, int n, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i + offset];
}

int main() {
  int n = 20000;
  int offset = 7;
  float *d_x, *d_y;
  cudaMalloc(&d_x, (n + offset) * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  shift_copy<<<(n + 127) / 128, 128>>>(d_y, d_x, n, offset);
  return 0;
}
