// launch: grid cdiv(N, 64) block 64
// expect: online max and sum
// extern "C", int64_t indices, const __restrict__, unroll pragmas, ternary max, __expf
#include <cstdint>
extern "C" __global__ void softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= N) return;
    const int64_t base = r * C;
    float mx = -3.402823466e+38f;
    #pragma unroll 8
    for (int64_t j = 0; j < C; ++j) {
        const float v = inp[base + j];
        mx = v > mx ? v : mx;
    }
    float den = 0.0f;
    #pragma unroll 8
    for (int64_t j = 0; j < C; ++j) den += __expf(inp[base + j] - mx);
    const float inv = 1.0f / den;
    #pragma unroll 8
    for (int64_t j = 0; j < C; ++j) out[base + j] = __expf(inp[base + j] - mx) * inv;
}
