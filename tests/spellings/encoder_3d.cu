// launch: grid cdiv(B*T*C, 256) block 256
// expect: 8 consecutive elements per thread with packed accesses of out, wpe, wte
#include <cuda_bf16.h>
__global__ void encoder_forward(__nv_bfloat16* out, const int* tokens, const __nv_bfloat16* wte,
                                const __nv_bfloat16* wpe, int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * T * C) {
        int b = idx / (T * C);
        int t = (idx / C) % T;
        int c = idx % C;
        int tok = tokens[b * T + t];
        out[(b * T + t) * C + c] = __float2bfloat16(__bfloat162float(wte[tok * C + c]) + __bfloat162float(wpe[t * C + c]));
    }
}
