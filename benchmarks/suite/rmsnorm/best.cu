// RMS normalization, hand-written: a block of 256 threads per row, each thread holding up to
// two 16-byte packs (8 bf16 each) of the row in registers (C <= 4096, C a multiple of 8).
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;
#define RMS_THREADS 256
#define RMS_PACKS 2

struct alignas(16) pack8 {
  floatX v[8];
};

__global__ void __launch_bounds__(RMS_THREADS) rmsnorm_forward(floatX* __restrict__ out, float* __restrict__ rstd,
                                                               const floatX* __restrict__ inp,
                                                               const floatX* __restrict__ weight, int N, int C) {
  __shared__ float scratch[32];
  const int row = blockIdx.x;
  if (row >= N) return;
  const pack8* x = reinterpret_cast<const pack8*>(inp + (size_t)row * C);
  const int np = C / 8;
  pack8 r[RMS_PACKS];
  float ss = 0.0f;
#pragma unroll
  for (int k = 0; k < RMS_PACKS; ++k) {
    const int i = threadIdx.x + k * RMS_THREADS;
    if (i < np) {
      r[k] = x[i];
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float v = __bfloat162float(r[k].v[e]);
        ss += v * v;
      }
    }
  }
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = ss;
  __syncthreads();
  ss = threadIdx.x % 32 < RMS_THREADS / 32 ? scratch[threadIdx.x % 32] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  const float s = rsqrtf(ss / C + 1e-6f);
  const pack8* w = reinterpret_cast<const pack8*>(weight);
  pack8* y = reinterpret_cast<pack8*>(out + (size_t)row * C);
#pragma unroll
  for (int k = 0; k < RMS_PACKS; ++k) {
    const int i = threadIdx.x + k * RMS_THREADS;
    if (i < np) {
      const pack8 wv = w[i];
      pack8 o;
#pragma unroll
      for (int e = 0; e < 8; ++e)
        o.v[e] = __float2bfloat16(__bfloat162float(r[k].v[e]) * s * __bfloat162float(wv.v[e]));
      y[i] = o;
    }
  }
  if (threadIdx.x == 0) rstd[row] = s;
}
