// launch: grid cdiv(N, 256) block 256
// expect: over a warp per row, 8 elements per access
#include <cuda_bf16.h>
#include <cstdint>
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__global__ void rmsnorm_forward(__nv_bfloat16* out, float* rstd, const __nv_bfloat16* inp,
                                const __nv_bfloat16* weight, int N, int C) {
    const int64_t row = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (row < N) {
        const float eps = 1e-6f;
        const __nv_bfloat16* x = inp + row * C;
        __nv_bfloat16* o = out + row * C;
        float ss = 0.0f;
        for (int i = 0; i < C; ++i) {
            float v = to_f(x[i]);
            ss += v * v;
        }
        float r = rsqrtf(ss / C + eps);
        rstd[row] = r;
        for (int i = 0; i < C; ++i) {
            o[i] = __float2bfloat16_rn(to_f(x[i]) * r * to_f(weight[i]));
        }
    }
}
