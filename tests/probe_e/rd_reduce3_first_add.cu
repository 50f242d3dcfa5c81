// style: Harris reduce3 (sequential addressing, first add during global load, static shared BLOCK_SIZE), host main
// launch: grid cdiv(n, 512) block 256
// sizes: n=100003
// expect: block-tree|block-atomic
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_SIZE 256

__global__ void reduce3(const float *g_idata, float *g_odata, int n)
{
    __shared__ float sdata[BLOCK_SIZE];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    float mySum = (i < n) ? g_idata[i] : 0.0f;
    if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
    sdata[tid] = mySum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) g_odata[blockIdx.x] = mySum;
}

int main()
{
    int n = 100003;
    int blocks = (n + 2 * BLOCK_SIZE - 1) / (2 * BLOCK_SIZE);
    float *h_in = (float *)malloc(n * sizeof(float));
    float *h_out = (float *)malloc(blocks * sizeof(float));
    for (int i = 0; i < n; i++) h_in[i] = 1.0f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, blocks * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    reduce3<<<blocks, BLOCK_SIZE>>>(d_in, d_out, n);
    cudaMemcpy(h_out, d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    double total = 0;
    for (int b = 0; b < blocks; b++) total += h_out[b];
    printf("sum = %f (expect %d)\n", total, n);
    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
