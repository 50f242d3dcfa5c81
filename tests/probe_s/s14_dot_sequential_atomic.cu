// style: CUDA by Example ch.5 dot product variant; __shared__ float cache[threadsPerBlock], cacheIndex naming, sequential addressing loop with i = blockDim.x / 2 halving while (i != 0), block result added with atomicAdd(c, cache[0]) instead of a partial array, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(n, 128) block 128
// sizes: n=4099
// expect: block-tree|block-atomic
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

const int threadsPerBlock = 128;

__global__ void dot(const float *a, const float *b, float *c, int n)
{
    __shared__ float cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    float temp = 0;
    if (tid < n)
        temp = a[tid] * b[tid];
    cache[cacheIndex] = temp;

    __syncthreads();

    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }

    if (cacheIndex == 0)
        atomicAdd(c, cache[0]);
}

int main(void)
{
    const int n = 4099;
    float *a = (float *)malloc(n * sizeof(float));
    float *b = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        a[i] = (float)i / n;
        b[i] = 2.0f;
    }

    float *dev_a, *dev_b, *dev_c;
    cudaMalloc((void **)&dev_a, n * sizeof(float));
    cudaMalloc((void **)&dev_b, n * sizeof(float));
    cudaMalloc((void **)&dev_c, sizeof(float));
    cudaMemcpy(dev_a, a, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dev_b, b, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dev_c, 0, sizeof(float));

    int blocksPerGrid = (n + threadsPerBlock - 1) / threadsPerBlock;
    dot<<<blocksPerGrid, threadsPerBlock>>>(dev_a, dev_b, dev_c, n);

    float c = 0;
    cudaMemcpy(&c, dev_c, sizeof(float), cudaMemcpyDeviceToHost);
    printf("GPU dot = %.6g\n", c);

    cudaFree(dev_a);
    cudaFree(dev_b);
    cudaFree(dev_c);
    free(a);
    free(b);
    return 0;
}
