// GELU, hand-written: each thread moves 8 bf16 values (16 bytes) per load and store, and
// issues its 4 loads of a step together before computing (memory-level parallelism); the
// block's 4 x 256 packs are contiguous and coalesced per warp. Buffers from cudaMalloc are
// 256-byte aligned; the last partial chunk goes element by element.
#include <cuda_bf16.h>

typedef __nv_bfloat16 act_t;
#define GELU_UNROLL 4

struct alignas(16) pack8 {
  act_t v[8];
};

__device__ __forceinline__ float gelu_tanh(float v) {
  const float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
  return 0.5f * v * (1.0f + tanhf(inner));
}

__global__ void gelu_forward(act_t* __restrict__ y, const act_t* __restrict__ x, int n) {
  const pack8* xv = reinterpret_cast<const pack8*>(x);
  pack8* yv = reinterpret_cast<pack8*>(y);
  const long long nvec = n / 8;
  const long long chunk = (long long)blockDim.x * GELU_UNROLL;
  for (long long base = (long long)blockIdx.x * chunk; base < nvec; base += (long long)gridDim.x * chunk) {
    if (base + chunk <= nvec) {
      pack8 in[GELU_UNROLL];
#pragma unroll
      for (int k = 0; k < GELU_UNROLL; ++k) in[k] = xv[base + threadIdx.x + k * blockDim.x];
#pragma unroll
      for (int k = 0; k < GELU_UNROLL; ++k) {
        pack8 out;
#pragma unroll
        for (int e = 0; e < 8; ++e) out.v[e] = __float2bfloat16(gelu_tanh(__bfloat162float(in[k].v[e])));
        yv[base + threadIdx.x + k * blockDim.x] = out;
      }
    } else {
      for (long long i = base + threadIdx.x; i < nvec; i += blockDim.x) {
        const pack8 in = xv[i];
        pack8 out;
#pragma unroll
        for (int e = 0; e < 8; ++e) out.v[e] = __float2bfloat16(gelu_tanh(__bfloat162float(in.v[e])));
        yv[i] = out;
      }
    }
  }
  if (blockIdx.x == 0)
    for (int i = (int)(nvec * 8) + threadIdx.x; i < n; i += blockDim.x) y[i] = __float2bfloat16(gelu_tanh(__bfloat162float(x[i])));
}
