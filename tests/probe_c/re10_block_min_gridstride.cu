// launch: grid 120 block 256
// sizes: n=500000
// expect: block-tree
// minimum: grid-stride fminf per thread, shared-memory tree with sequential addressing, one partial per block (CUDA min/max reduction tutorial code)
#include <cfloat>

#define THREADS 256

__global__ void block_min(const float * __restrict__ in, float * __restrict__ partial, size_t n)
{
    __shared__ float smin[THREADS];

    unsigned int tid = threadIdx.x;
    float m = FLT_MAX;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + tid; i < n; i += (size_t)blockDim.x * gridDim.x)
        m = fminf(m, in[i]);
    smin[tid] = m;
    __syncthreads();

    for (unsigned int s = blockDim.x >> 1; s > 0; s >>= 1) {
        if (tid < s)
            smin[tid] = fminf(smin[tid], smin[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = smin[0];
}
