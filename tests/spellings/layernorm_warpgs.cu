// launch: grid 1 block 64
// expect: over a warp per row
// a warp per row over a grid-stride loop, sum and sum of squares in one loop, shuffles
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    return __shfl_sync(0xffffffffu, v, 0);
}
__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C) {
    int lane = threadIdx.x & 31;
    int gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int nw = (gridDim.x * blockDim.x) >> 5;
    for (int row = gw; row < N; row += nw) {
        const float* x = inp + row * C;
        float s = 0.f, q = 0.f;
        for (int i = lane; i < C; i += 32) {
            float v = x[i];
            s += v;
            q += v * v;
        }
        s = warp_sum(s);
        q = warp_sum(q);
        float mu = s / C;
        float r = rsqrtf(q / C - mu * mu + 1e-5f);
        for (int i = lane; i < C; i += 32) out[row * C + i] = (x[i] - mu) * r * weight[i] + bias[i];
        if (lane == 0) {
            mean[row] = mu;
            rstd[row] = r;
        }
    }
}
