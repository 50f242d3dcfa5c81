// corpus: softmax step 2: one warp per row (coalesced), shuffles for the max and the sum; accurate expf
// fixes: uncoalesced-access
// absent: fp64-in-float-kernel, sync-in-divergent-branch, shared-bank-conflict, register-spill, uncoalesced-access, block-reduction-barriers
__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void softmax_warp_row(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= rows) return;
    const float* in = x + (size_t)warp * cols;
    float* out = y + (size_t)warp * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, in[c]);
    m = warp_max(m);
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) sum += expf(in[c] - m);  // expect: slow-math-in-loop
    sum = warp_sum(sum);
    for (int c = lane; c < cols; c += 32) out[c] = expf(in[c] - m) / sum;  // expect: slow-math-in-loop
}

void launch_softmax(const float* x, float* y, int rows, int cols) {
    softmax_warp_row<<<(rows * 32 + 255) / 256, 256>>>(x, y, rows, cols);
}
