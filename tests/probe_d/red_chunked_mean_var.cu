// launch: grid cdiv(n, 2048) block 128
// sizes: n=310000
// expect: block-tree|block-atomic
// Sum and sum of squares (mean/variance) where each thread serially sums a contiguous CHUNK and issues two atomics (naive "thread coarsening")
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHUNK 16

__global__ void chunk_moments(const float *x, float *sum, float *sumsq, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int start = t * CHUNK;
    if (start >= n) return;
    int end = min(start + CHUNK, n);

    float s = 0.0f, s2 = 0.0f;
    for (int i = start; i < end; ++i) {
        float v = x[i];
        s += v;
        s2 += v * v;
    }
    atomicAdd(sum, s);
    atomicAdd(sumsq, s2);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 310000;
    float *x, *acc;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&acc, 2 * sizeof(float));
    for (int i = 0; i < n; ++i) x[i] = (float)(i % 10) * 0.1f;
    acc[0] = acc[1] = 0.0f;

    int nthreads = (n + CHUNK - 1) / CHUNK;
    int block = 128;
    int grid = (nthreads + block - 1) / block;
    chunk_moments<<<grid, block>>>(x, &acc[0], &acc[1], n);
    cudaDeviceSynchronize();

    float mean = acc[0] / n;
    float var = acc[1] / n - mean * mean;
    printf("mean %f var %f\n", mean, var);
    cudaFree(x); cudaFree(acc);
    return 0;
}
