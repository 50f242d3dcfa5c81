// launch: grid 4 block 64
// expect: 8 elements per access
// a block per token with tokens strided over the grid, threads striding the channels
#include <cuda_bf16.h>
__global__ void encoder_forward(__nv_bfloat16* out, const int* tokens, const __nv_bfloat16* wte,
                                const __nv_bfloat16* wpe, int B, int T, int C) {
    for (int bt = blockIdx.x; bt < B * T; bt += gridDim.x) {
        int t = bt % T;
        int tok = tokens[bt];
        for (int c = threadIdx.x; c < C; c += blockDim.x) {
            float v = __bfloat162float(wte[tok * C + c]) + __bfloat162float(wpe[t * C + c]);
            out[bt * C + c] = __float2bfloat16(v);
        }
    }
}
