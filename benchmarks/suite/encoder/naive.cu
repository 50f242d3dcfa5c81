// Token + position embeddings: one thread per token walks its channels.
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

__global__ void encoder_forward(floatX* out, const int* tokens, const floatX* wte, const floatX* wpe,
                                int B, int T, int C) {
  int bt = blockIdx.x * blockDim.x + threadIdx.x;
  if (bt < B * T) {
    int t = bt % T;
    int tok = tokens[bt];
    floatX* dst = out + (size_t)bt * C;
    const floatX* te = wte + (size_t)tok * C;
    const floatX* pe = wpe + (size_t)t * C;
    for (int c = 0; c < C; c++) {
      dst[c] = (floatX)((float)te[c] + (float)pe[c]);
    }
  }
}
