// launch: grid cdiv(n, 256) block 256 shared 256 * 4
// sizes: n=180000
// expect: block-tree
// Sum of squares (for an L2 norm): products staged in dynamic shared memory, then thread 0 adds them serially and does one atomicAdd per block
#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>

__global__ void sumsq_kernel(const float *x, float *out, int n)
{
    extern __shared__ float cache[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    cache[tid] = (i < n) ? x[i] * x[i] : 0.0f;
    __syncthreads();

    if (tid == 0) {
        float s = 0.0f;
        for (int k = 0; k < blockDim.x; ++k)
            s += cache[k];
        atomicAdd(out, s);
    }
}

float l2_norm(const float *d_x, int n)
{
    float *d_out;
    float h_out = 0.0f;
    cudaMalloc(&d_out, sizeof(float));
    cudaMemset(d_out, 0, sizeof(float));
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    sumsq_kernel<<<blocks, threads, threads * sizeof(float)>>>(d_x, d_out, n);
    cudaMemcpy(&h_out, d_out, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_out);
    return sqrtf(h_out);
}
