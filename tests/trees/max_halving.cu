// a block max with fmaxf, the value a guarded absolute value, sizes through a typedef
typedef unsigned int uint;
__global__ void block_absmax(const float* __restrict__ x, float* __restrict__ partial, uint n) {
    __shared__ float m[128];
    uint tid = threadIdx.x, g = blockIdx.x * blockDim.x + tid;
    float v = -INFINITY;
    if (g < n) v = fabsf(x[g]);
    m[tid] = v;
    __syncthreads();
    for (uint s = blockDim.x >> 1; s > 0; s >>= 1) {
        if (tid < s) m[tid] = fmaxf(m[tid], m[tid + s]);
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = m[0];
}
