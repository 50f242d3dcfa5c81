// launch: grid cdiv(n, 256) block 256 shared 256*4
// sizes: n=250000
// expect: block-tree
// interleaved addressing with a strided index (bank conflicts, no divergence), partial sums finished on the host (Harris "Optimizing Parallel Reduction", reduce1)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define THREADS_PER_BLOCK 256

__global__ void reduce1(int *g_idata, int *g_odata, unsigned int n)
{
    extern __shared__ int sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();

    // do reduction in shared mem
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        int index = 2 * s * tid;

        if (index < blockDim.x) {
            sdata[index] += sdata[index + s];
        }

        __syncthreads();
    }

    // write result for this block to global mem
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

int main(void)
{
    unsigned int n = 250000;
    int blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;

    int *h_in = (int *)malloc(n * sizeof(int));
    int *h_out = (int *)malloc(blocks * sizeof(int));
    for (unsigned int i = 0; i < n; i++) h_in[i] = rand() & 0xFF;

    int *d_in, *d_out;
    cudaMalloc((void **)&d_in, n * sizeof(int));
    cudaMalloc((void **)&d_out, blocks * sizeof(int));
    cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice);

    reduce1<<<blocks, THREADS_PER_BLOCK, THREADS_PER_BLOCK * sizeof(int)>>>(d_in, d_out, n);
    cudaMemcpy(h_out, d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost);

    long long gpu_sum = 0, cpu_sum = 0;
    for (int b = 0; b < blocks; b++) gpu_sum += h_out[b];
    for (unsigned int i = 0; i < n; i++) cpu_sum += h_in[i];
    printf("GPU sum: %lld, CPU sum: %lld\n", gpu_sum, cpu_sum);

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
