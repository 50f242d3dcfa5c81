// style: first-week CUDA tutorial total sum, every in-range thread does atomicAdd(total, x[i]) on one global float, host main zeroes the result with cudaMemset and compares to a CPU double sum
// launch: grid cdiv(n, 256) block 256
// sizes: n=65537
// expect: block-tree|block-atomic|warp-atomic
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

__global__ void sum_atomic(const float *x, float *total, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        atomicAdd(total, x[i]);
}

int main(void)
{
    const int n = 65537;
    float *h_x = (float *)malloc(n * sizeof(float));
    double ref = 0.0;
    for (int i = 0; i < n; i++) {
        h_x[i] = (float)((i % 13) - 6) * 0.125f;
        ref += h_x[i];
    }

    float *d_x, *d_total, h_total = 0.0f;
    cudaMalloc((void **)&d_x, n * sizeof(float));
    cudaMalloc((void **)&d_total, sizeof(float));
    cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_total, 0, sizeof(float));

    int threadsPerBlock = 256;
    int blocksPerGrid = (n + threadsPerBlock - 1) / threadsPerBlock;
    sum_atomic<<<blocksPerGrid, threadsPerBlock>>>(d_x, d_total, n);
    cudaMemcpy(&h_total, d_total, sizeof(float), cudaMemcpyDeviceToHost);

    printf("gpu %f cpu %f diff %g\n", h_total, ref, fabs(h_total - ref));
    cudaFree(d_x); cudaFree(d_total);
    free(h_x);
    return 0;
}
