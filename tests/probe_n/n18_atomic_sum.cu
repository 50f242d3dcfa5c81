// style: blog-post "grid-stride sum" -- long counters, thread-local partial accumulated in a for loop with the stride hoisted, one atomicAdd per thread
// launch: grid cdiv(n, 1024) block 256
// sizes: n=100003
// expect: block-tree|block-atomic|warp-atomic
#include <cuda_runtime.h>

__global__ void sum_atomic(const float *x, float *result, long n)
{
    long stride = (long)gridDim.x * blockDim.x;
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    float partial = 0.0f;

    for (; i < n; i += stride)
        partial += x[i];

    atomicAdd(result, partial);
}

// host helper: result must start at zero before the launch
float device_sum(const float *d_x, long n)
{
    float *d_res, h_res = 0.0f;
    cudaMalloc(&d_res, sizeof(float));
    cudaMemset(d_res, 0, sizeof(float));
    int blocks = (int)((n + 1023) / 1024);
    sum_atomic<<<blocks, 256>>>(d_x, d_res, n);
    cudaMemcpy(&h_res, d_res, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_res);
    return h_res;
}
