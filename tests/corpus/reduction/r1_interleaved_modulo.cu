// corpus: reduction step 1: interleaved addressing, the active threads picked with a modulo
// absent: block-reduction-barriers, shared-bank-conflict, sync-in-divergent-branch, fp64-in-float-kernel
#define THREADS 256

__global__ void sum_interleaved(const float* __restrict__ in, float* __restrict__ partial, int n) {
    __shared__ float buf[THREADS];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
    buf[t] = g < n ? in[g] : 0.0f;  // expect: reduction-idle-threads
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0) {  // expect: divergent-interleaved-reduction
            buf[t] += buf[t + s];
        }
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = buf[0];
}

void launch_sum(const float* in, float* partial, int n) {
    sum_interleaved<<<(n + THREADS - 1) / THREADS, THREADS>>>(in, partial, n);
}
