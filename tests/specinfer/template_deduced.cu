// A template kernel whose T is deduced from the pointers the launch passes: float from `float* d_in`.
// expect: out [n] out; in [n] in; dtype out float32; host n = 5000
#include <cuda_runtime.h>

template <typename T>
__global__ void negate(T* out, const T* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = -in[i];
}

int main() {
  int n = 5000;
  float* d_in;
  float* d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  negate<<<(n + 255) / 256, 256>>>(d_out, d_in, n);
  return 0;
}
