// corpus: reduction step 3: sequential addressing (contiguous active threads, no bank conflicts)
// fixes: shared-bank-conflict
// absent: divergent-interleaved-reduction, sync-in-divergent-branch, fp64-in-float-kernel
#define THREADS 256

__global__ void sum_sequential(const float* __restrict__ in, float* __restrict__ partial, int n) {
    __shared__ float buf[THREADS];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
    buf[t] = g < n ? in[g] : 0.0f;  // expect: reduction-idle-threads
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {  // expect: block-reduction-barriers
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = buf[0];
}

void launch_sum(const float* in, float* partial, int n) {
    sum_sequential<<<(n + THREADS - 1) / THREADS, THREADS>>>(in, partial, n);
}
