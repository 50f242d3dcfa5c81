// style: Mark Harris "Optimizing Parallel Reduction" reduce #3: shared-memory tree with sequential addressing (s >>= 1), one partial sum per block, host adds the partials
// launch: grid cdiv(n, 256) block 256
// sizes: n=100003
// expect: block-tree|block-atomic
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void reduce3(const float *g_idata, float *g_odata, int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    // each thread loads one element from global to shared mem
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0.0f;
    __syncthreads();

    // do reduction in shared mem
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    // write result for this block to global mem
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

int main()
{
    int n = 100003;
    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    float *h_in = (float*)malloc(n * sizeof(float));
    float *h_part = (float*)malloc(blocks * sizeof(float));
    for (int i = 0; i < n; i++) h_in[i] = 1.0f;

    float *d_in, *d_part;
    cudaMalloc((void**)&d_in, n * sizeof(float));
    cudaMalloc((void**)&d_part, blocks * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    reduce3<<<blocks, BLOCK_SIZE>>>(d_in, d_part, n);
    cudaMemcpy(h_part, d_part, blocks * sizeof(float), cudaMemcpyDeviceToHost);

    double total = 0.0;
    for (int b = 0; b < blocks; b++) total += h_part[b];
    printf("sum = %.1f (expect %d)\n", total, n);

    cudaFree(d_in); cudaFree(d_part);
    free(h_in); free(h_part);
    return 0;
}
