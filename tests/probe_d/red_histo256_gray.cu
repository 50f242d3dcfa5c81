// launch: grid 40 block 256
// sizes: size=250000
// expect: private-bins
// ECE408 histogram-equalization step / "CUDA by Example" histo_kernel: 256-bin histogram of 8-bit pixels with global atomics, strided loop
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define HISTOGRAM_LENGTH 256

__global__ void histo_kernel(unsigned char *buffer, long size, unsigned int *histo)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    // stride is total number of threads
    int stride = blockDim.x * gridDim.x;
    // All threads handle blockDim.x * gridDim.x consecutive elements
    while (i < size) {
        atomicAdd(&(histo[buffer[i]]), 1);
        i += stride;
    }
}

int main(void)
{
    const long SIZE = 250000;
    unsigned char *buffer = (unsigned char *)malloc(SIZE);
    for (long i = 0; i < SIZE; i++) buffer[i] = (unsigned char)(rand() & 0xff);

    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    cudaMalloc((void **)&dev_buffer, SIZE);
    cudaMemcpy(dev_buffer, buffer, SIZE, cudaMemcpyHostToDevice);
    cudaMalloc((void **)&dev_histo, HISTOGRAM_LENGTH * sizeof(int));
    cudaMemset(dev_histo, 0, HISTOGRAM_LENGTH * sizeof(int));

    int blocks = 40;
    histo_kernel<<<blocks, 256>>>(dev_buffer, SIZE, dev_histo);

    unsigned int histo[HISTOGRAM_LENGTH];
    cudaMemcpy(histo, dev_histo, HISTOGRAM_LENGTH * sizeof(int), cudaMemcpyDeviceToHost);
    long histoCount = 0;
    for (int i = 0; i < HISTOGRAM_LENGTH; i++) histoCount += histo[i];
    printf("Histogram Sum: %ld\n", histoCount);

    cudaFree(dev_histo);
    cudaFree(dev_buffer);
    free(buffer);
    return 0;
}
