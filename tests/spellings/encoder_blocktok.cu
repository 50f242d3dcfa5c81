// launch: grid B*T block 256
// expect: 8 elements per access
// A block per token, its threads striding the channels (no shared memory).
#include <cuda_bf16.h>
__global__ void encoder_forward(__nv_bfloat16* out, const int* tokens, const __nv_bfloat16* wte,
                                const __nv_bfloat16* wpe, int B, int T, int C) {
    int bt = blockIdx.x;
    int b = bt / T;
    int t = bt % T;
    int ix = tokens[b * T + t];
    __nv_bfloat16* out_bt = out + b * T * C + t * C;
    const __nv_bfloat16* wte_ix = wte + ix * C;
    const __nv_bfloat16* wpe_t = wpe + t * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        out_bt[c] = __float2bfloat16(__bfloat162float(wte_ix[c]) + __bfloat162float(wpe_t[c]));
    }
}
