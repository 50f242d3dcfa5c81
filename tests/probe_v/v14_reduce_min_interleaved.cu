// style: textbook "reduction #1" (interleaved addressing, tid % (2*s) == 0, s *= 2) turned into a minimum; fminf combine, tail padded with FLT_MAX, one partial per block written to global and finished on the CPU in host main
// launch: grid cdiv(n, 256) block 256
// sizes: n=4091
// expect: block-tree|block-atomic|warp-atomic
#include <stdio.h>
#include <stdlib.h>
#include <float.h>
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void reduce_min(const float *g_idata, float *g_odata, int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : FLT_MAX;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] = fminf(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }

    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

int main(void)
{
    int n = 4091;
    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    float *h_in = (float *)malloc(n * sizeof(float));
    float *h_part = (float *)malloc(blocks * sizeof(float));
    float ref = FLT_MAX;
    for (int i = 0; i < n; i++) {
        h_in[i] = (float)((i * 37) % 1009) - 500.0f;
        if (h_in[i] < ref) ref = h_in[i];
    }

    float *d_in, *d_part;
    cudaMalloc((void **)&d_in, n * sizeof(float));
    cudaMalloc((void **)&d_part, blocks * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    reduce_min<<<blocks, BLOCK_SIZE>>>(d_in, d_part, n);
    cudaMemcpy(h_part, d_part, blocks * sizeof(float), cudaMemcpyDeviceToHost);

    float m = FLT_MAX;
    for (int b = 0; b < blocks; b++) m = fminf(m, h_part[b]);
    printf("gpu min = %f, cpu min = %f\n", m, ref);

    cudaFree(d_in); cudaFree(d_part);
    free(h_in); free(h_part);
    return 0;
}
