// launch: grid cdiv(N, 64) block 64
// expect: over a block per row, 8 elements per access
#include <cuda_bf16.h>
__global__ void rmsnorm_forward(__nv_bfloat16* out, float* rstd, const __nv_bfloat16* inp,
                                const __nv_bfloat16* weight, int N, int C) {
    unsigned int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    float ss = 0.0f;
    unsigned int c = 0;
    while (c < C) {
        float v = __bfloat162float(inp[row * C + c]);
        ss += v * v;
        ++c;
    }
    float rms = sqrtf(ss / (float)C + 1e-6f);
    for (unsigned int k = 0; k < C; ++k) {
        out[row * C + k] = __float2bfloat16(__bfloat162float(inp[row * C + k]) / rms * __bfloat162float(weight[k]));
    }
    rstd[row] = 1.0f / rms;
}
