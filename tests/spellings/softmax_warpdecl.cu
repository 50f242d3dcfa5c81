// launch: grid cdiv(N, 4) block 128
// expect: online max and sum
// A warp per row (its index from the global thread index), shuffles down then a broadcast.
__global__ void softmax_forward(float* out, const float* inp, int N, int C) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= N) return;
    const float* x = inp + warp * C;
    float maxval = -INFINITY;
    for (int i = lane; i < C; i += 32) maxval = fmaxf(maxval, x[i]);
    for (int off = 16; off > 0; off /= 2) maxval = fmaxf(maxval, __shfl_down_sync(0xffffffff, maxval, off));
    maxval = __shfl_sync(0xffffffff, maxval, 0);
    float sum = 0.0f;
    for (int i = lane; i < C; i += 32) sum += expf(x[i] - maxval);
    for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffff, sum, off);
    sum = __shfl_sync(0xffffffff, sum, 0);
    for (int i = lane; i < C; i += 32) out[warp * C + i] = expf(x[i] - maxval) / sum;
}
