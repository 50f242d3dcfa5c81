// style: classic per-block shared-memory tree sum (Harris "reduce #2"-ish, sequential addressing), extern __shared__, for (s = blockDim.x/2; s > 0; s >>= 1), partial sum to out[blockIdx.x], finish on host
// launch: grid cdiv(n, 256) block 256 shared 256 * 4
// sizes: n=100003
// expect: block-tree|block-atomic
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void block_sum(const float *in, float *out, int n)
{
    extern __shared__ float sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main(int argc, char **argv)
{
    int n = 100003;
    int numBlocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    size_t inBytes = n * sizeof(float);
    size_t outBytes = numBlocks * sizeof(float);

    float *h_in = (float *)malloc(inBytes);
    float *h_partial = (float *)malloc(outBytes);
    double cpu = 0.0;
    for (int i = 0; i < n; i++) { h_in[i] = (float)(rand() % 10); cpu += h_in[i]; }

    float *d_in, *d_out;
    cudaMalloc((void **)&d_in, inBytes);
    cudaMalloc((void **)&d_out, outBytes);
    cudaMemcpy(d_in, h_in, inBytes, cudaMemcpyHostToDevice);

    block_sum<<<numBlocks, BLOCK_SIZE, BLOCK_SIZE * sizeof(float)>>>(d_in, d_out, n);
    cudaDeviceSynchronize();
    cudaMemcpy(h_partial, d_out, outBytes, cudaMemcpyDeviceToHost);

    double gpu = 0.0;
    for (int b = 0; b < numBlocks; b++) gpu += h_partial[b];
    printf("gpu %.1f cpu %.1f\n", gpu, cpu);

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_partial);
    return 0;
}
