// Token + position embeddings with an auto (unsigned) index and a while loop.
#include <cuda_bf16.h>

__global__ void encoder_forward(__nv_bfloat16* out, const int* tokens, const __nv_bfloat16* wte,
                                const __nv_bfloat16* wpe, int B, int T, int C) {
  const auto bt = blockIdx.x * blockDim.x + threadIdx.x;
  if (bt >= (unsigned)(B * T)) return;
  const int t = bt % T;
  const size_t row = (size_t)tokens[bt] * C;
  int c = 0;
  while (c < C) {
    out[(size_t)bt * C + c] = __float2bfloat16(__bfloat162float(wte[row + c]) +
                                               __bfloat162float(wpe[(size_t)t * C + c]));
    ++c;
  }
}
