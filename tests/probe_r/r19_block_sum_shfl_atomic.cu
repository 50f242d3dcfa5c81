// style: NVIDIA "Faster Parallel Reductions on Kepler" blog pattern; warpReduceSum with __shfl_down_sync(0xffffffff, ...) in a __device__ helper, per-warp partials in __shared__ float shared[32], first warp reduces them, thread 0 does atomicAdd(out, sum)
// launch: grid cdiv(n, 256) block 256
// sizes: n=4099
// expect: block-tree|block-atomic
#include <cuda_runtime.h>

__inline__ __device__ float warpReduceSum(float val)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(0xffffffff, val, offset);
    return val;
}

__global__ void deviceReduceWarpAtomicKernel(const float *in, float *out, int n)
{
    static __shared__ float shared[32];
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = (i < n) ? in[i] : 0.0f;

    sum = warpReduceSum(sum);
    if (lane == 0) shared[wid] = sum;
    __syncthreads();

    sum = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0.0f;
    if (wid == 0) {
        sum = warpReduceSum(sum);
        if (threadIdx.x == 0) atomicAdd(out, sum);
    }
}
