// bfloat16 output from float input, sizes as size_t.
// expect: out [n] out; in [n] in; dtype out bfloat16
#include <cuda_bf16.h>

__global__ void to_bf16(__nv_bfloat16* out, const float* in, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}
