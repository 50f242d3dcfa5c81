// launch: grid cdiv(n, 256) block 256
// expect: packed 8-element loads and stores of x, y
#include <cuda_bf16.h>
__global__ void gelu_forward(__nv_bfloat16* y, const __nv_bfloat16* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __bfloat162float(__ldg(&x[i]));
    const float k0 = 0.7978845608f;
    __stcs(&y[i], __float2bfloat16(0.5f * v * (1.0f + tanhf(k0 * (v + 0.044715f * v * v * v)))));
}
