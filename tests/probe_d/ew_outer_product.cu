// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=520 n=610 alpha=0.75
// expect: coalesce-xy
// Rank-1 update / outer product A[i][j] += alpha * x[i] * y[j] (BLAS sger-like) with threadIdx.x on the row index i
#include <cuda_runtime.h>

#define IDX(i, j, ld) ((i) * (ld) + (j))

__global__ void ger_kernel(float *A, const float *x, const float *y, int m, int n, float alpha)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n)
        A[IDX(i, j, n)] += alpha * x[i] * y[j];
}

void sger_gpu(float *dA, const float *dx, const float *dy, int m, int n, float alpha)
{
    dim3 threads(16, 16);
    dim3 blocks((m + 15) / 16, (n + 15) / 16);
    ger_kernel<<<blocks, threads>>>(dA, dx, dy, m, n, alpha);
}
