// launch: grid cdiv(N, 128) block 128
// expect: 8 elements per access
#include <cuda_bf16.h>
using bf16 = __nv_bfloat16;
#define TOF(x) __bfloat162float(x)
__global__ void rmsnorm_forward(bf16* out, float* rstd, const bf16* inp, const bf16* weight, int N, int C) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    const bf16* in_row = inp + row * C;
    bf16* out_row = out + row * C;
    float sum_sq = 0.0f;
    for (int c = 0; c < C; c++) sum_sq += TOF(in_row[c]) * TOF(in_row[c]);
    float scale = rsqrtf(sum_sq / C + 1e-6f);
    for (int c = 0; c < C; c++) out_row[c] = __float2bfloat16(TOF(in_row[c]) * scale * TOF(weight[c]));
    rstd[row] = scale;
}
