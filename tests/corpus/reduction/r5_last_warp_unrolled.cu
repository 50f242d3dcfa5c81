// corpus: reduction step 5: the last warp finishes without block barriers
// fixes: block-reduction-barriers
// absent: reduction-idle-threads, shared-bank-conflict, divergent-interleaved-reduction, sync-in-divergent-branch
#define THREADS 256

__device__ void warp_tail(volatile float* buf, unsigned int t) {
    buf[t] += buf[t + 32];
    buf[t] += buf[t + 16];
    buf[t] += buf[t + 8];
    buf[t] += buf[t + 4];
    buf[t] += buf[t + 2];
    buf[t] += buf[t + 1];
}

__global__ void sum_warp_tail(const float* __restrict__ in, float* __restrict__ partial, int n) {
    __shared__ float buf[THREADS];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = g < n ? in[g] : 0.0f;
    if (g + blockDim.x < n) v += in[g + blockDim.x];
    buf[t] = v;  // expect: reduction-few-elements-per-thread
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {  // expect: block-size-loop
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t < 32) warp_tail(buf, t);
    if (t == 0) partial[blockIdx.x] = buf[0];
}

void launch_sum(const float* in, float* partial, int n) {
    sum_warp_tail<<<(n + 2 * THREADS - 1) / (2 * THREADS), THREADS>>>(in, partial, n);
}
