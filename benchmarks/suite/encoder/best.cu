// Token + position embeddings, hand-written: one thread per 8 channels of one token, moved
// with 16-byte loads and stores (C a multiple of 8, as in every GPT shape; otherwise one by one).
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

struct alignas(16) pack8 {
  floatX v[8];
};

__global__ void encoder_forward(floatX* __restrict__ out, const int* __restrict__ tokens,
                                const floatX* __restrict__ wte, const floatX* __restrict__ wpe,
                                int B, int T, int C) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (C % 8 == 0) {
    const int c8 = C / 8;
    const long long total = (long long)B * T * c8;
    for (long long i = first; i < total; i += stride) {
      const int bt = (int)(i / c8), c = (int)(i % c8) * 8, t = bt % T;
      const pack8 a = *reinterpret_cast<const pack8*>(wte + (size_t)tokens[bt] * C + c);
      const pack8 p = *reinterpret_cast<const pack8*>(wpe + (size_t)t * C + c);
      pack8 o;
#pragma unroll
      for (int k = 0; k < 8; ++k) o.v[k] = __float2bfloat16(__bfloat162float(a.v[k]) + __bfloat162float(p.v[k]));
      *reinterpret_cast<pack8*>(out + (size_t)bt * C + c) = o;
    }
  } else {
    const long long total = (long long)B * T * C;
    for (long long i = first; i < total; i += stride) {
      const int bt = (int)(i / C), c = (int)(i % C), t = bt % T;
      out[i] = __float2bfloat16(__bfloat162float(wte[(size_t)tokens[bt] * C + c]) +
                                __bfloat162float(wpe[(size_t)t * C + c]));
    }
  }
}
