// style: radix-sort-style "orderable float" max (CUB TwiddleIn key flip: negatives inverted, positives get the sign bit set) so a float max becomes an unsigned max - size_t grid-stride loop keeping a per-thread unsigned best, sm_80 __reduce_max_sync warp reduction (no shuffles, no shared memory), lane 0 of each warp does atomicMax on the single encoded global result; decode with the inverse flip on the host
// launch: grid cdiv(n, 256) block 256
// sizes: n=4093
// expect: block-tree|block-atomic|warp-atomic
#include <cuda_runtime.h>
#include <stddef.h>

__device__ __forceinline__ unsigned int float_to_ordered(float f)
{
    unsigned int u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__host__ __device__ __forceinline__ float ordered_to_float(unsigned int u)
{
    unsigned int b = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    union { unsigned int i; float f; } cvt;
    cvt.i = b;
    return cvt.f;
}

// *out_ordered must start at 0u (below the encoding of every float)
__global__ void max_ordered_kernel(const float *__restrict__ x, size_t n,
                                   unsigned int *__restrict__ out_ordered)
{
    unsigned int best = 0u;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        best = max(best, float_to_ordered(x[i]));
    }

    best = __reduce_max_sync(0xffffffffu, best);

    if ((threadIdx.x & 31u) == 0u)
        atomicMax(out_ordered, best);
}
