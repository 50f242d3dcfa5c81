// launch: grid cdiv(n, 256) block 256
// sizes: n=160000
// expect: block-tree|block-atomic
// Argmin of non-negative float scores via 64-bit packed (value bits, index) atomicMin per element (nearest-neighbour search style)
#include <cuda_runtime.h>
#include <cstdio>

typedef unsigned long long u64;

__device__ __forceinline__ u64 pack_key(float v, unsigned idx)
{
    // for v >= 0 the IEEE bit pattern orders like the value
    return ((u64)__float_as_uint(v) << 32) | (u64)idx;
}

__global__ void argmin_kernel(const float* __restrict__ dist, u64* __restrict__ best, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float d = fabsf(dist[i]);
    atomicMin(best, pack_key(d, (unsigned)i));
}

int argmin_gpu(const float* d_dist, int n)
{
    u64* d_best;
    u64 h_best = ~0ull;
    cudaMalloc(&d_best, sizeof(u64));
    cudaMemcpy(d_best, &h_best, sizeof(u64), cudaMemcpyHostToDevice);
    argmin_kernel<<<(n + 255) / 256, 256>>>(d_dist, d_best, n);
    cudaMemcpy(&h_best, d_best, sizeof(u64), cudaMemcpyDeviceToHost);
    cudaFree(d_best);
    return (int)(h_best & 0xffffffffu);
}
