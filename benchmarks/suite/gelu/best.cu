// GELU, hand-written: each thread moves 8 bf16 values (16 bytes) per load and store.
// Buffers from cudaMalloc are 256-byte aligned, so the packed view of x and y is aligned;
// the last n % 8 elements go one by one.
#include <cuda_bf16.h>

typedef __nv_bfloat16 act_t;

struct alignas(16) pack8 {
  act_t v[8];
};

__device__ __forceinline__ float gelu_tanh(float v) {
  const float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
  return 0.5f * v * (1.0f + tanhf(inner));
}

__global__ void gelu_forward(act_t* __restrict__ y, const act_t* __restrict__ x, int n) {
  const int nvec = n / 8;
  const int stride = gridDim.x * blockDim.x;
  const pack8* xv = reinterpret_cast<const pack8*>(x);
  pack8* yv = reinterpret_cast<pack8*>(y);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += stride) {
    const pack8 in = xv[i];
    pack8 out;
#pragma unroll
    for (int k = 0; k < 8; ++k) out.v[k] = __float2bfloat16(gelu_tanh(__bfloat162float(in.v[k])));
    yv[i] = out;
  }
  for (int i = nvec * 8 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = __float2bfloat16(gelu_tanh(__bfloat162float(x[i])));
}
