// style: NVIDIA-blog 'Faster Parallel Reductions on Kepler' spelling applied to a max - grid-stride register max seeded with -INFINITY and fmaxf, warpReduceMax with a __shfl_down_sync offset loop, lane 0 of every warp commits through an atomicMaxFloat helper built on atomicCAS over __float_as_int bits (no shared memory); *out must be preset to -INFINITY by the host
// launch: grid cdiv(N, 256) block 256
// sizes: N=4097
// expect: block-tree|block-atomic|warp-atomic
#include <math.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float atomicMaxFloat(float* address, float val)
{
    int* address_as_int = (int*)address;
    int old = *address_as_int, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(address_as_int, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

__inline__ __device__ float warpReduceMax(float val)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val = fmaxf(val, __shfl_down_sync(0xffffffff, val, offset));
    return val;
}

__global__ void deviceReduceWarpAtomicMaxKernel(const float* in, float* out, int N)
{
    float m = -INFINITY;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x;
         i < N;
         i += blockDim.x * gridDim.x) {
        m = fmaxf(m, in[i]);
    }
    m = warpReduceMax(m);
    if ((threadIdx.x & (warpSize - 1)) == 0)
        atomicMaxFloat(out, m);
}
