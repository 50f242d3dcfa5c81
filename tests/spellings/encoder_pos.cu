// launch: grid cdiv(B*T*C, 256) block 256
// expect: quotients of the element index
#include <cuda_bf16.h>
__global__ void encoder_forward(__nv_bfloat16* out, const int* tokens, const __nv_bfloat16* wte,
                                const __nv_bfloat16* wpe, int B, int T, int C) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)B * T * C) return;
    const int c = idx % C;
    const int t = (idx / C) % T;
    const int tok = tokens[idx / C];
    out[idx] = __hadd(wte[(long long)tok * C + c], wpe[t * C + c]);
}
