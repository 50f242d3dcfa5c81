// style: ML-utility L1 norm (sum of |x|); sequential-addressing tree (s = blockDim.x/2; s > 0; s >>= 1) factored into a __device__ helper that takes the static __shared__ buffer as a pointer, thread 0 atomicAdds the block partial into a single global result (zeroed by the caller)
// launch: grid cdiv(n, 128) block 128
// sizes: n=3001
// expect: block-tree|block-atomic|warp-atomic
#include <cuda_runtime.h>

#define THREADS 128

__device__ float block_sum(float *smem, float v)
{
    unsigned int tid = threadIdx.x;
    smem[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            smem[tid] += smem[tid + s];
        __syncthreads();
    }
    return smem[0];
}

__global__ void l1_norm(const float *x, float *result, int n)
{
    __shared__ float buf[THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? fabsf(x[i]) : 0.0f;
    float total = block_sum(buf, v);
    if (threadIdx.x == 0)
        atomicAdd(result, total);
}
