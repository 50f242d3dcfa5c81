// style: quantisation-library absmax (scale = amax/127) reduction templated on the element type with explicit instantiations for float and double; grid-stride accumulation of |x| into a per-thread max, sequential-addressing shared tree, per-block partial maxima written to an output array (identity 0 since |x| >= 0)
// launch: grid cdiv(n, 256) block 256
// sizes: n=4093
// expect: block-tree|block-atomic|warp-atomic
#include <cuda_runtime.h>

#define AMAX_BLOCK 256

template <typename T>
__global__ void absmax_partial(const T *in, T *block_max, int n)
{
    __shared__ T smax[AMAX_BLOCK];
    int tid = threadIdx.x;
    T m = T(0);
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        T a = in[i] < T(0) ? -in[i] : in[i];
        if (a > m) m = a;
    }
    smax[tid] = m;
    __syncthreads();

    for (int s = AMAX_BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s && smax[tid + s] > smax[tid])
            smax[tid] = smax[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        block_max[blockIdx.x] = smax[0];
}

template __global__ void absmax_partial<float>(const float *, float *, int);
template __global__ void absmax_partial<double>(const double *, double *, int);
