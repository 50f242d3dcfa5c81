// launch: {"grid": ["cdiv(B * T * C, 2048)"], "block": [256]}
// Token + position embeddings, best.cu's mapping (a thread per 16-byte pack, 32-bit indices, no
// grid-stride) with streaming hints where the bytes are used once: wte rows read with __ldcs and
// the output written with __stcs, so L2 keeps wpe (read B times); C % 8 != 0: element by element.
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
struct alignas(16) pack8 { floatX v[8]; };

__global__ void __launch_bounds__(256) encoder_forward(floatX* __restrict__ out, const int* __restrict__ tokens,
                                                       const floatX* __restrict__ wte, const floatX* __restrict__ wpe,
                                                       int B, int T, int C) {
  if (C % 8 == 0) {
    const int c8 = C / 8;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * T * c8) return;
    const int bt = i / c8, c = (i - bt * c8) * 8;
    const int tok = tokens[bt];
    const int4 av = __ldcs(reinterpret_cast<const int4*>(wte + (size_t)tok * C + c));
    const pack8 q = *reinterpret_cast<const pack8*>(wpe + (size_t)(bt % T) * C + c);
    pack8 a, r;
    memcpy(&a, &av, sizeof a);
#pragma unroll
    for (int k = 0; k < 8; ++k) r.v[k] = __float2bfloat16(__bfloat162float(a.v[k]) + __bfloat162float(q.v[k]));
    int4 rv;
    memcpy(&rv, &r, sizeof r);
    __stcs(reinterpret_cast<int4*>(out + (size_t)bt * C + c), rv);
  } else {
    const long long total = (long long)B * T * C;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
      const int bt = (int)(i / C), c = (int)(i % C);
      out[i] = __float2bfloat16(__bfloat162float(wte[(size_t)tokens[bt] * C + c]) +
                                __bfloat162float(wpe[(size_t)(bt % T) * C + c]));
    }
  }
}
