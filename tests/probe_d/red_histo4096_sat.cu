// launch: grid cdiv(num_elements, 512) block 512
// sizes: num_elements=220000 num_bins=4096
// expect: private-bins
// ECE408 MP "histogram": 4096 bins of unsigned int input with global atomics, followed by a saturate-to-127 kernel
// kernel: histogram_kernel
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define NUM_BINS 4096
#define BLOCK_SIZE 512

__global__ void histogram_kernel(unsigned int *input, unsigned int *bins,
                                 unsigned int num_elements,
                                 unsigned int num_bins) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < num_elements) {
    unsigned int v = input[i];
    if (v < num_bins)
      atomicAdd(&bins[v], 1);
  }
}

__global__ void convert_kernel(unsigned int *bins, unsigned int num_bins) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < num_bins && bins[i] > 127)
    bins[i] = 127;
}

void histogram(unsigned int *input, unsigned int *bins,
               unsigned int num_elements, unsigned int num_bins) {
  // zero out bins
  cudaMemset(bins, 0, num_bins * sizeof(unsigned int));
  // Launch histogram kernel on the bins
  {
    dim3 blockDim(BLOCK_SIZE), gridDim((num_elements + BLOCK_SIZE - 1) / BLOCK_SIZE);
    histogram_kernel<<<gridDim, blockDim>>>(input, bins, num_elements, num_bins);
    cudaGetLastError();
  }
  // Make sure bin values are not too large
  {
    dim3 blockDim(BLOCK_SIZE);
    dim3 gridDim((num_bins + blockDim.x - 1) / blockDim.x);
    convert_kernel<<<gridDim, blockDim>>>(bins, num_bins);
    cudaGetLastError();
  }
}
