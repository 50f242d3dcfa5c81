// A template kernel with a type and a value parameter given at its launch: square<float, 2>, two per thread.
// expect: out [n] out; in [n] in; dtype out float32; host n = 3000
#include <cuda_runtime.h>

template <typename T, int UNROLL>
__global__ void square(T* out, const T* in, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    int i = base + u;
    if (i < n) out[i] = in[i] * in[i];
  }
}

int main() {
  const int n = 3000;
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  square<float, 2><<<(n + 511) / 512, 256>>>(d_out, d_in, n);
  return 0;
}
