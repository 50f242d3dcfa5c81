// corpus: reduction step 7: each thread adds many elements (a grid-stride loop) before the tree
// fixes: reduction-few-elements-per-thread
// absent: block-reduction-barriers, reduction-idle-threads, shared-bank-conflict, divergent-interleaved-reduction, sync-in-divergent-branch, block-size-loop
template <unsigned int BS>
__device__ void warp_tail(volatile float* buf, unsigned int t) {
    if (BS >= 64) buf[t] += buf[t + 32];
    if (BS >= 32) buf[t] += buf[t + 16];
    if (BS >= 16) buf[t] += buf[t + 8];
    if (BS >= 8) buf[t] += buf[t + 4];
    if (BS >= 4) buf[t] += buf[t + 2];
    if (BS >= 2) buf[t] += buf[t + 1];
}

template <unsigned int BS>
__global__ void sum_grid_stride(const float* __restrict__ in, float* __restrict__ partial, unsigned int n) {
    __shared__ float buf[BS];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * (BS * 2) + threadIdx.x;
    unsigned int stride = BS * 2 * gridDim.x;
    float v = 0.0f;
    while (g < n) {
        v += in[g];
        if (g + BS < n) v += in[g + BS];
        g += stride;
    }
    buf[t] = v;
    __syncthreads();
    if (BS >= 512) { if (t < 256) buf[t] += buf[t + 256]; __syncthreads(); }
    if (BS >= 256) { if (t < 128) buf[t] += buf[t + 128]; __syncthreads(); }
    if (BS >= 128) { if (t < 64) buf[t] += buf[t + 64]; __syncthreads(); }
    if (t < 32) warp_tail<BS>(buf, t);
    if (t == 0) partial[blockIdx.x] = buf[0];
}

void launch_sum(const float* in, float* partial, unsigned int n) {
    sum_grid_stride<256><<<264, 256>>>(in, partial, n);
}
