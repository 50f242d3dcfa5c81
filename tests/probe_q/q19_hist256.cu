// style: CUDA by Example ch.9 histo_kernel (global-memory atomics version); unsigned char buffer, 256 unsigned int bins, grid-stride while loop with offset = blockDim.x * gridDim.x, host code with cudaMemset on the bins
// launch: grid cdiv(size, 256) block 256
// sizes: size=10007
// expect: private-bins
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void histo_kernel(const unsigned char *buffer, long size, unsigned int *histo)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&(histo[buffer[i]]), 1u);
        i += offset;
    }
}

int main(void)
{
    const long size = 10007;
    unsigned char *buffer = (unsigned char *)malloc(size);
    for (long i = 0; i < size; i++) buffer[i] = (unsigned char)((i * 7 + 3) & 0xff);

    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    cudaMalloc((void **)&dev_buffer, size);
    cudaMemcpy(dev_buffer, buffer, size, cudaMemcpyHostToDevice);
    cudaMalloc((void **)&dev_histo, 256 * sizeof(unsigned int));
    cudaMemset(dev_histo, 0, 256 * sizeof(unsigned int));

    int blocks = (int)((size + 255) / 256);
    histo_kernel<<<blocks, 256>>>(dev_buffer, size, dev_histo);

    unsigned int histo[256];
    cudaMemcpy(histo, dev_histo, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    long histoCount = 0;
    for (int i = 0; i < 256; i++) histoCount += histo[i];
    printf("Histogram Sum: %ld\n", histoCount);

    cudaFree(dev_histo); cudaFree(dev_buffer); free(buffer);
    return 0;
}
