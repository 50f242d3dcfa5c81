// style: NVIDIA-blog grid-stride dot product without shared memory; __device__ fmaf helper, stride held in a local, fixed 160-block grid, one float atomicAdd per thread
// launch: grid 160 block 256
// sizes: n=1000003
// expect: block-atomic|warp-atomic|block-tree

__device__ __forceinline__ float mad_acc(float acc, float a, float b)
{
    return fmaf(a, b, acc);
}

// *result must be zeroed before launch.
__global__ void dot_atomic(const float* __restrict__ x, const float* __restrict__ y,
                           float* __restrict__ result, int n)
{
    float partial = 0.0f;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        partial = mad_acc(partial, x[i], y[i]);
    atomicAdd(result, partial);
}
