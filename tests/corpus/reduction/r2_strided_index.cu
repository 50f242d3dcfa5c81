// corpus: reduction step 2: interleaved addressing with a strided index (no modulo, no divergence)
// fixes: divergent-interleaved-reduction
// absent: block-reduction-barriers, sync-in-divergent-branch, fp64-in-float-kernel
#define THREADS 256

__global__ void sum_strided(const float* __restrict__ in, float* __restrict__ partial, int n) {
    __shared__ float buf[THREADS];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
    buf[t] = g < n ? in[g] : 0.0f;  // expect: reduction-idle-threads
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int slot = 2 * s * t;
        if (slot < blockDim.x) {
            buf[slot] += buf[slot + s];  // expect: shared-bank-conflict
        }
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = buf[0];
}

void launch_sum(const float* in, float* partial, int n) {
    sum_strided<<<(n + THREADS - 1) / THREADS, THREADS>>>(in, partial, n);
}
