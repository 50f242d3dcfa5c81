// launch: grid cdiv(N, 256) block 256
// expect: online max and sum
#include <cfloat>

__device__ __forceinline__ float my_max(float a, float b) { return a > b ? a : b; }


__global__ void softmax_forward(float* out, const float* inp, int N, int C) {
    size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < (size_t)N) {
        float mx = -FLT_MAX;
        for (size_t j = 0; j < C; ++j) mx = my_max(mx, inp[row * C + j]);
        float total = 0;
        for (size_t j = 0; j < C; ++j) {
            float e = expf(inp[row * C + j] - mx);
            out[row * C + j] = e;
            total += e;
        }
        for (size_t j = 0; j < C; ++j) out[row * C + j] = out[row * C + j] / total;
    }
}
