// GELU with an unsigned index and an early return; the constant comes from M_PI.
#include <cuda_bf16.h>
#include <math.h>

using bf16 = __nv_bfloat16;

__global__ void gelu_forward(bf16* y, const bf16* x, int n) {
  const unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t >= n) return;
  const float v = (float)x[t];
  const float k = sqrtf(2.0f / (float)M_PI);
  y[t] = (bf16)(0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v))));
}
