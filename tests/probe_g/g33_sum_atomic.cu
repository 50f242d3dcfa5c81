// style: common "array sum" answer: grid-stride accumulation into a register, shared-memory tree, then one atomicAdd per block into a single global result
// launch: grid cdiv(n, 512) block 512
// sizes: n=1000037
// expect: block-tree|block-atomic
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define THREADS 512

__global__ void sum_kernel(const float *x, float *result, int n)
{
    __shared__ float cache[THREADS];
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    float temp = 0;
    while (idx < n) {
        temp += x[idx];
        idx += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();

    // blockDim.x must be a power of 2
    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }

    if (cacheIndex == 0)
        atomicAdd(result, cache[0]);
}

int main()
{
    const int n = 1000037;
    float *h_x = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) h_x[i] = 0.5f;

    float *d_x, *d_result, h_result = 0.0f;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_result, sizeof(float));
    cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_result, 0, sizeof(float));

    int blocks = (n + THREADS - 1) / THREADS;
    sum_kernel<<<blocks, THREADS>>>(d_x, d_result, n);
    cudaMemcpy(&h_result, d_result, sizeof(float), cudaMemcpyDeviceToHost);
    printf("sum = %f (expect %f)\n", h_result, 0.5 * n);

    cudaFree(d_x); cudaFree(d_result); free(h_x);
    return 0;
}
