// launch: grid cdiv(n, 256) block 256
// expect: packed 8-element loads and stores of x, y
#include <cuda_bf16.h>
#include <cstdint>
#define CUBE(v) ((v) * (v) * (v))
static __device__ __forceinline__ float gelu_tanh(float v) {
    const float c = 0.79788456f;
    return 0.5f * v * (1.0f + tanhf(c * (v + 0.044715f * CUBE(v))));
}
__global__ void gelu_forward(__nv_bfloat16* __restrict__ y, const __nv_bfloat16* __restrict__ x, int n) {
    int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx < n) {
        const float v = static_cast<float>(x[idx]);
        y[idx] = static_cast<__nv_bfloat16>(gelu_tanh(v));
    }
}
