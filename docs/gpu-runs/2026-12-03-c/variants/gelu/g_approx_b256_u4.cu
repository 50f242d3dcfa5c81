// launch: {"grid": ["cdiv(n, 8192)"], "block": [256]}
// GELU variant: tanh.approx
#include <cuda_bf16.h>
typedef __nv_bfloat16 act_t;
#define GELU_UNROLL 4
struct alignas(16) pack8 { act_t v[8]; };

__device__ __forceinline__ float tanh_fast(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float gelu_tanh(float v) {
  const float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
  return 0.5f * v * (1.0f + tanh_fast(inner));
}
__global__ void __launch_bounds__(256) gelu_forward(act_t* __restrict__ y, const act_t* __restrict__ x, int n) {
  const pack8* xv = reinterpret_cast<const pack8*>(x);
  pack8* yv = reinterpret_cast<pack8*>(y);
  const int nvec = n / 8;
  const int chunk = blockDim.x * GELU_UNROLL;
  const int base = blockIdx.x * chunk + threadIdx.x;
  if (blockIdx.x * chunk + chunk <= nvec) {
    pack8 in[GELU_UNROLL];
#pragma unroll
    for (int k = 0; k < GELU_UNROLL; ++k) in[k] = xv[base + k * (int)blockDim.x];
#pragma unroll
    for (int k = 0; k < GELU_UNROLL; ++k) {
      pack8 out;
#pragma unroll
      for (int e = 0; e < 8; ++e) out.v[e] = __float2bfloat16(gelu_tanh(__bfloat162float(in[k].v[e])));
      yv[base + k * (int)blockDim.x] = out;
    }
  } else {
#pragma unroll
    for (int k = 0; k < GELU_UNROLL; ++k) {
      const int i = base + k * (int)blockDim.x;
      if (i < nvec) {
        const pack8 in = xv[i];
        pack8 out;
#pragma unroll
        for (int e = 0; e < 8; ++e) out.v[e] = __float2bfloat16(gelu_tanh(__bfloat162float(in.v[e])));
        yv[i] = out;
      }
    }
    if (blockIdx.x == gridDim.x - 1)
      for (int i = nvec * 8 + threadIdx.x; i < n; i += blockDim.x) y[i] = __float2bfloat16(gelu_tanh(__bfloat162float(x[i])));
  }
}
