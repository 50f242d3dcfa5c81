// style: cuda-samples reduce2 -- extern __shared__ sdata, sequential addressing tree with s >>= 1, per-block partials, unsigned int indices, host main finishing on CPU
// launch: grid cdiv(n, 256) block 256 shared 256 * 4
// sizes: n=100003
// expect: block-tree|block-atomic|warp-atomic
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void reduce2(const float *g_idata, float *g_odata, unsigned int n)
{
    extern __shared__ float sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

int main()
{
    const unsigned int n = 100003, threads = 256;
    const unsigned int blocks = (n + threads - 1) / threads;
    float *h = (float *)malloc(n * sizeof(float));
    float *hp = (float *)malloc(blocks * sizeof(float));
    for (unsigned int i = 0; i < n; i++) h[i] = 1.0f;

    float *d_in, *d_part;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_part, blocks * sizeof(float));
    cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);

    reduce2<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_part, n);
    cudaMemcpy(hp, d_part, blocks * sizeof(float), cudaMemcpyDeviceToHost);

    double total = 0.0;
    for (unsigned int b = 0; b < blocks; b++) total += hp[b];
    printf("sum = %.1f (expect %u)\n", total, n);

    cudaFree(d_in); cudaFree(d_part);
    free(h); free(hp);
    return 0;
}
