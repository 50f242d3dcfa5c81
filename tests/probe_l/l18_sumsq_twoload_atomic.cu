// style: Harris "reduce #4" (first add during load, each thread squares two elements i and i + blockDim.x) used for a squared L2 norm, static __shared__ float sdata[THREADS], sequential-addressing tree with s >>= 1, thread 0 does atomicAdd(result, sdata[0]), host memsets the result and takes sqrt
// launch: grid cdiv(n, 512) block 256
// sizes: n=100003
// expect: block-tree|block-atomic|warp-atomic
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void sumsq_reduce(const float *__restrict__ v, float *__restrict__ result, int n)
{
    __shared__ float sdata[THREADS];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    float a = (i < (unsigned)n) ? v[i] : 0.0f;
    float b = (i + blockDim.x < (unsigned)n) ? v[i + blockDim.x] : 0.0f;
    sdata[tid] = a * a + b * b;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        atomicAdd(result, sdata[0]);
}

int main(void)
{
    const int n = 100003;
    float *h_v = (float *)malloc(n * sizeof(float));
    double ref = 0.0;
    for (int i = 0; i < n; i++) {
        h_v[i] = (float)((i % 19) - 9) * 0.1f;
        ref += (double)h_v[i] * h_v[i];
    }

    float *d_v, *d_res;
    cudaMalloc((void **)&d_v, n * sizeof(float));
    cudaMalloc((void **)&d_res, sizeof(float));
    cudaMemcpy(d_v, h_v, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_res, 0, sizeof(float));

    int blocks = (n + THREADS * 2 - 1) / (THREADS * 2);
    sumsq_reduce<<<blocks, THREADS>>>(d_v, d_res, n);

    float h_res = 0.0f;
    cudaMemcpy(&h_res, d_res, sizeof(float), cudaMemcpyDeviceToHost);
    printf("||v||_2 = %f (ref %f)\n", sqrtf(h_res), sqrt(ref));

    cudaFree(d_v); cudaFree(d_res);
    free(h_v);
    return 0;
}
