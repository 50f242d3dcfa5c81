// style: Harris "Optimizing Parallel Reduction" kernel 1 (interleaved addressing, divergent `if (tid % (2*s) == 0)`, for s = 1; s < blockDim.x; s *= 2) adapted to a max with -FLT_MAX padding, unsigned int n, per-block maxima to g_odata[blockIdx.x] and a CPU second pass
// launch: grid cdiv(n, 128) block 128
// sizes: n=50021
// expect: block-tree|block-atomic|warp-atomic
#include <cstdio>
#include <cstdlib>
#include <cfloat>
#include <cuda_runtime.h>

#define BLOCK_SIZE 128

__global__ void reduce_max0(const float *g_idata, float *g_odata, unsigned int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : -FLT_MAX;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }

    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

int main(int argc, char **argv)
{
    unsigned int n = 50021;
    unsigned int numBlocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;

    float *h_idata = (float *)malloc(n * sizeof(float));
    float *h_odata = (float *)malloc(numBlocks * sizeof(float));
    float cpu_max = -FLT_MAX;
    for (unsigned int i = 0; i < n; i++) {
        h_idata[i] = (float)((i * 2654435761u) % 100000u) * 1e-3f - 50.0f;
        if (h_idata[i] > cpu_max) cpu_max = h_idata[i];
    }

    float *d_idata, *d_odata;
    cudaMalloc((void **)&d_idata, n * sizeof(float));
    cudaMalloc((void **)&d_odata, numBlocks * sizeof(float));
    cudaMemcpy(d_idata, h_idata, n * sizeof(float), cudaMemcpyHostToDevice);

    reduce_max0<<<numBlocks, BLOCK_SIZE>>>(d_idata, d_odata, n);
    cudaMemcpy(h_odata, d_odata, numBlocks * sizeof(float), cudaMemcpyDeviceToHost);

    float gpu_max = -FLT_MAX;
    for (unsigned int b = 0; b < numBlocks; b++)
        if (h_odata[b] > gpu_max) gpu_max = h_odata[b];
    printf("gpu max %f, cpu max %f\n", gpu_max, cpu_max);

    cudaFree(d_idata); cudaFree(d_odata);
    free(h_idata); free(h_odata);
    return 0;
}
