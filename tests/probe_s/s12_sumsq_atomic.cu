// style: "my first reduction" forum post; squared L2 norm where every thread does atomicAdd(result, v * v) on one global float, size_t n and size_t index built with a (size_t) cast on blockIdx.x, if (i < n) block without early return, no host code
// launch: grid cdiv(n, 256) block 256
// sizes: n=5003
// expect: block-atomic|warp-atomic
#include <cuda_runtime.h>

__global__ void sum_squares(const float *x, float *result, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        atomicAdd(result, v * v);
    }
}
