// corpus: reduction step 4: each thread adds two elements while loading (half the blocks)
// fixes: reduction-idle-threads
// absent: divergent-interleaved-reduction, shared-bank-conflict, sync-in-divergent-branch
#define THREADS 256

__global__ void sum_add_on_load(const float* __restrict__ in, float* __restrict__ partial, int n) {
    __shared__ float buf[THREADS];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = g < n ? in[g] : 0.0f;
    if (g + blockDim.x < n) v += in[g + blockDim.x];
    buf[t] = v;  // expect: reduction-few-elements-per-thread
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {  // expect: block-reduction-barriers
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = buf[0];
}

void launch_sum(const float* in, float* partial, int n) {
    sum_add_on_load<<<(n + 2 * THREADS - 1) / (2 * THREADS), THREADS>>>(in, partial, n);
}
