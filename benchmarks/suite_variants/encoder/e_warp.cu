// launch: {"grid": ["cdiv(B * T, 4)"], "block": [128]}
// Token + position embeddings, a warp per token: one broadcast load of the token id, then each lane
// keeps up to 4 16-byte packs of wte and 4 of wpe in flight (a 1024-channel row in one round, 768
// in 3 packs per lane), all loads before the adds and stores; C % 8 != 0: element by element.
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
struct alignas(16) pack8 { floatX v[8]; };
#define P 4  // packs per lane per round

__global__ void __launch_bounds__(128) encoder_forward(floatX* __restrict__ out, const int* __restrict__ tokens,
                                                       const floatX* __restrict__ wte, const floatX* __restrict__ wpe,
                                                       int B, int T, int C) {
  const int bt = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (bt >= B * T) return;
  const int tok = tokens[bt];
  const floatX* e = wte + (size_t)tok * C;
  const floatX* p = wpe + (size_t)(bt % T) * C;
  floatX* o = out + (size_t)bt * C;
  if (C % 8 == 0) {
    const int c8 = C / 8;
    for (int c0 = 0; c0 < c8; c0 += 32 * P) {
      pack8 a[P], q[P];
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const int c = c0 + lane + 32 * k;
        if (c < c8) {
          a[k] = reinterpret_cast<const pack8*>(e)[c];
          q[k] = reinterpret_cast<const pack8*>(p)[c];
        }
      }
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const int c = c0 + lane + 32 * k;
        if (c < c8) {
          pack8 r;
#pragma unroll
          for (int j = 0; j < 8; ++j) r.v[j] = __float2bfloat16(__bfloat162float(a[k].v[j]) + __bfloat162float(q[k].v[j]));
          reinterpret_cast<pack8*>(o)[c] = r;
        }
      }
    }
  } else {
    for (int c = lane; c < C; c += 32) o[c] = __float2bfloat16(__bfloat162float(e[c]) + __bfloat162float(p[c]));
  }
}
