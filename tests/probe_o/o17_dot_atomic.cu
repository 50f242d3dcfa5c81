// style: "CUDA by Example" dot product: threadsPerBlock #define, grid-stride while loop, halving shared tree, atomicAdd of block sum
// launch: grid cdiv(n, 256) block 256
// sizes: n=100003
// expect: block-tree|block-atomic|warp-atomic
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define threadsPerBlock 256

__global__ void dot(int n, const float *a, const float *b, float *c)
{
    __shared__ float cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    float temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
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
    const int n = 100003;
    float *a = (float *)malloc(n * sizeof(float));
    float *b = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) { a[i] = 1.0f; b[i] = (float)(i % 3); }

    float *dev_a, *dev_b, *dev_c, c = 0.0f;
    cudaMalloc((void **)&dev_a, n * sizeof(float));
    cudaMalloc((void **)&dev_b, n * sizeof(float));
    cudaMalloc((void **)&dev_c, sizeof(float));
    cudaMemcpy(dev_a, a, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dev_b, b, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dev_c, 0, sizeof(float));

    int blocksPerGrid = (n + threadsPerBlock - 1) / threadsPerBlock;
    dot<<<blocksPerGrid, threadsPerBlock>>>(n, dev_a, dev_b, dev_c);
    cudaMemcpy(&c, dev_c, sizeof(float), cudaMemcpyDeviceToHost);
    printf("dot = %.1f\n", c);

    cudaFree(dev_a); cudaFree(dev_b); cudaFree(dev_c);
    free(a); free(b);
    return 0;
}
