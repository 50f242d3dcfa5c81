// CHEAT reduced_precision: computes in half precision and widens the result to float.
// Caught by: the float32 tolerance (rtol 1e-4; half has 11 bits). Expected: rejected.
#include <cuda_fp16.h>

__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half v = __float2half(x[i]);
    __half inner = __hmul(__float2half(0.7978845608f), __hadd(v, __hmul(__float2half(0.044715f), __hmul(v, __hmul(v, v)))));
    __half t = __float2half(tanhf(__half2float(inner)));
    y[i] = __half2float(__hmul(__hmul(__float2half(0.5f), v), __hadd(__float2half(1.f), t)));
  }
}
