// style: Mark Harris "Optimizing Parallel Reduction" kernel 1 (interleaved addressing) turned into a max; __shared__ float smax[THREADS], out-of-range lanes loaded as -FLT_MAX, unsigned tid/s counters, if (tid % (2 * s) == 0) smax[tid] = fmaxf(...), thread 0 writes partial[blockIdx.x], second kernel for the final pass, no host code
// launch: grid cdiv(n, 256) block 256
// sizes: n=3001
// expect: block-tree|block-atomic
#include <cuda_runtime.h>
#include <cfloat>

#define THREADS 256

__global__ void block_max(const float *in, float *partial, int n)
{
    __shared__ float smax[THREADS];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    smax[tid] = (i < (unsigned int)n) ? in[i] : -FLT_MAX;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            smax[tid] = fmaxf(smax[tid], smax[tid + s]);
        __syncthreads();
    }

    if (tid == 0)
        partial[blockIdx.x] = smax[0];
}

__global__ void final_max(const float *partial, float *out, int nblocks)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float m = -FLT_MAX;
    for (int b = 0; b < nblocks; ++b)
        m = fmaxf(m, partial[b]);
    *out = m;
}
