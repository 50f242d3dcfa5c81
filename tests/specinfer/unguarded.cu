// No bounds check: the host launches exactly n / 256 blocks, so n must be a multiple of 256.
// expect: a [N] inout; host N = 65536; no off-by-one
#include <cuda_runtime.h>

__global__ void square_all(float* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = a[i] * a[i];
}

int main() {
  const int N = 65536;
  float* d_a;
  cudaMalloc(&d_a, N * sizeof(float));
  square_all<<<N / 256, 256>>>(d_a);
  return 0;
}
