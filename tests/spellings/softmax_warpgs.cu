// launch: grid 2 block 64
// expect: online max and sum
// a warp per row, rows strided over the whole grid, shuffles for the max and the sum
__global__ void softmax_forward(float* out, const float* inp, int N, int C) {
    const int lane = threadIdx.x % 32;
    const int warps_per_block = blockDim.x / 32;
    for (int row = blockIdx.x * warps_per_block + threadIdx.x / 32; row < N; row += gridDim.x * warps_per_block) {
        const float* x = inp + (size_t)row * C;
        float* y = out + (size_t)row * C;
        float m = -INFINITY;
        for (int j = lane; j < C; j += 32) m = fmaxf(m, x[j]);
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
        float s = 0.0f;
        for (int j = lane; j < C; j += 32) s += expf(x[j] - m);
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
        float inv = 1.0f / s;
        for (int j = lane; j < C; j += 32) y[j] = expf(x[j] - m) * inv;
    }
}
