// corpus: layer norm step 2: one warp per row (coalesced); the output divides by the deviation every element
// fixes: uncoalesced-access
// absent: fp64-in-float-kernel, sync-in-divergent-branch, register-spill, shared-bank-conflict, uncoalesced-access
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return __shfl_sync(0xffffffffu, v, 0);
}

__global__ void layernorm_warp_row(const float* __restrict__ x, const float* __restrict__ gamma,
                                   const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                                   float eps) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float s = 0.0f, ss = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = in[c];
        s += v;
        ss += v * v;
    }
    s = warp_sum(s);
    ss = warp_sum(ss);
    float mean = s / cols;
    float sd = sqrtf(ss / cols - mean * mean + eps);
    for (int c = lane; c < cols; c += 32)
        y[(size_t)row * cols + c] = (in[c] - mean) / sd * gamma[c] + beta[c];  // expect: slow-math-in-loop
}

void launch_layernorm(const float* x, const float* g, const float* b, float* y, int rows, int cols) {
    layernorm_warp_row<<<(rows + 7) / 8, 256>>>(x, g, b, y, rows, cols, 1e-5f);
}
