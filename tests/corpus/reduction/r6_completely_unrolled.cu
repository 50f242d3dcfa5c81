// corpus: reduction step 6: the block size is a template parameter, every step unrolled
// fixes: block-size-loop
// absent: block-reduction-barriers, reduction-idle-threads, shared-bank-conflict, divergent-interleaved-reduction, sync-in-divergent-branch
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
__global__ void sum_unrolled(const float* __restrict__ in, float* __restrict__ partial, int n) {
    __shared__ float buf[BS];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * (BS * 2) + threadIdx.x;
    float v = g < n ? in[g] : 0.0f;
    if (g + BS < n) v += in[g + BS];
    buf[t] = v;  // expect: reduction-few-elements-per-thread
    __syncthreads();
    if (BS >= 512) { if (t < 256) buf[t] += buf[t + 256]; __syncthreads(); }
    if (BS >= 256) { if (t < 128) buf[t] += buf[t + 128]; __syncthreads(); }
    if (BS >= 128) { if (t < 64) buf[t] += buf[t + 64]; __syncthreads(); }
    if (t < 32) warp_tail<BS>(buf, t);
    if (t == 0) partial[blockIdx.x] = buf[0];
}

void launch_sum(const float* in, float* partial, int n) {
    sum_unrolled<256><<<(n + 511) / 512, 256>>>(in, partial, n);
}
