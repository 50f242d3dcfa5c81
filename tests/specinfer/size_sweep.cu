// A host loop over problem sizes: the launch's n is the loop's counter (its first value is the host size).
// expect: out [n] out; in [n] in; host n = 1024
#include <cuda_runtime.h>

__global__ void twice(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

void sweep(float* out, const float* in) {
  for (int n = 1024; n <= (1 << 20); n *= 4) {
    twice<<<(n + 255) / 256, 256>>>(out, in, n);
  }
}
