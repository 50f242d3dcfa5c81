// style: "CUDA by Example" ch.9 histo_kernel with global-memory atomics only: 256 bins, unsigned char buffer, while (i < size) atomicAdd(&histo[buffer[i]], 1), stride blockDim*gridDim
// launch: grid 64 block 256
// sizes: size=1000001
// expect: private-bins
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define SIZE (1000001)
#define NBINS 256

__global__ void histo_kernel(unsigned char *buffer, int size, unsigned int *histo)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&(histo[buffer[i]]), 1);
        i += offset;
    }
}

int main(void)
{
    unsigned char *buffer = (unsigned char *)malloc(SIZE);
    for (int i = 0; i < SIZE; i++) buffer[i] = (unsigned char)(rand() % 256);

    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    cudaMalloc((void **)&dev_buffer, SIZE);
    cudaMemcpy(dev_buffer, buffer, SIZE, cudaMemcpyHostToDevice);
    cudaMalloc((void **)&dev_histo, NBINS * sizeof(int));
    cudaMemset(dev_histo, 0, NBINS * sizeof(int));

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, 0);

    histo_kernel<<<64, 256>>>(dev_buffer, SIZE, dev_histo);

    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float elapsedTime;
    cudaEventElapsedTime(&elapsedTime, start, stop);
    printf("Time to generate: %3.1f ms\n", elapsedTime);

    unsigned int histo[NBINS];
    cudaMemcpy(histo, dev_histo, NBINS * sizeof(int), cudaMemcpyDeviceToHost);
    long histoCount = 0;
    for (int i = 0; i < NBINS; i++) histoCount += histo[i];
    printf("Histogram Sum: %ld\n", histoCount);

    // verify against the CPU
    for (int i = 0; i < SIZE; i++) histo[buffer[i]]--;
    for (int i = 0; i < NBINS; i++)
        if (histo[i] != 0) printf("Failure at %d!\n", i);

    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(dev_histo);
    cudaFree(dev_buffer);
    free(buffer);
    return 0;
}
