// launch: grid cdiv(B*T*C, 512) block 512
// expect: 8 consecutive elements per thread with packed accesses of out, wpe, wte
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
__global__ void encoder_forward(floatX* out, const int* tokens, const floatX* wte, const floatX* wpe,
                                int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T * C;
    if (idx < N) {
        int bt = idx / C;
        int b = bt / T;
        int t = bt % T;
        int c = idx % C;
        int ix = tokens[b * T + t];
        floatX* out_btc = out + b * T * C + t * C + c;
        const floatX* wte_ix = wte + ix * C + c;
        const floatX* wpe_tc = wpe + t * C + c;
        *out_btc = (floatX)((float)*wte_ix + (float)*wpe_tc);
    }
}
