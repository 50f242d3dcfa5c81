// launch: grid cdiv(tokens, 16), cdiv(d_out, 16) block 16, 16
// sizes: tokens=250 d_in=320 d_out=448
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// bf16 linear projection out = in @ W^T with float accumulation, threadIdx.x on tokens (naive bf16 reference kernel in LLM-inference repos)
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

__global__ void linear_bf16_naive(bf16* out, const bf16* in, const bf16* W,
                                  int tokens, int d_in, int d_out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;   // token (row of out)
    int o = blockIdx.y * blockDim.y + threadIdx.y;   // output feature
    if (t < tokens && o < d_out) {
        const bf16* x = in + t * d_in;
        const bf16* w = W + o * d_in;
        float sum = 0.0f;
        for (int k = 0; k < d_in; k++) {
            sum += __bfloat162float(x[k]) * __bfloat162float(w[k]);
        }
        out[t * d_out + o] = __float2bfloat16(sum);
    }
}
