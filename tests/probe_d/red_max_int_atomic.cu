// launch: grid 64 block 256
// sizes: n=300000
// expect: block-tree|block-atomic
// Global maximum of an int array with a grid-stride loop and one atomicMax per element (NVIDIA grid-stride blog pattern)
#include <cuda_runtime.h>
#include <climits>
#include <cstdio>
#include <cstdlib>

__global__ void max_reduce_atomic(const int *in, int *result, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicMax(result, in[i]);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300000;
    int *in, *result;
    cudaMallocManaged(&in, n * sizeof(int));
    cudaMallocManaged(&result, sizeof(int));
    for (int i = 0; i < n; i++) in[i] = (i * 2654435761u) % 100003;
    *result = INT_MIN;

    int blockSize = 256;
    int numBlocks = 64;
    max_reduce_atomic<<<numBlocks, blockSize>>>(in, result, n);
    cudaDeviceSynchronize();

    printf("max = %d\n", *result);
    cudaFree(in);
    cudaFree(result);
    return 0;
}
