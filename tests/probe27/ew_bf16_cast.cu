// launch: grid cdiv(n, 256) block 256
// sizes: n=100001
// expect: elementwise
#include <cuda_bf16.h>
// bf16 -> float conversion of an activation
__global__ void to_float(float* out, const __nv_bfloat16* in, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}
