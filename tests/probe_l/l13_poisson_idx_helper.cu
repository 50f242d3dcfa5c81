// style: finite-difference Poisson class code, one Jacobi sweep for -Lap u = f on an n x n grid, every neighbour addressed through `__device__ __forceinline__ int idx(int i, int j, int n)`, h2 (= h*h) as float param, i = row from blockIdx.y, boundary left untouched, host iterates
// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n=129 h2=0.0001
// expect: stencil-tile|stencil-window|stencil-march
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__device__ __forceinline__ int idx(int i, int j, int n)
{
    return i * n + j;
}

__global__ void poisson_jacobi(const float *u, float *u_new, const float *f, int n, float h2)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;

    if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
        u_new[idx(i, j, n)] = 0.25f * (u[idx(i - 1, j, n)] + u[idx(i + 1, j, n)] +
                                       u[idx(i, j - 1, n)] + u[idx(i, j + 1, n)] +
                                       h2 * f[idx(i, j, n)]);
    }
}

int main(void)
{
    const int n = 129, iters = 200;
    const float h = 1.0f / 100.0f, h2 = h * h;   /* = 0.0001 */
    size_t bytes = (size_t)n * n * sizeof(float);

    float *h_u = (float *)calloc((size_t)n * n, sizeof(float));
    float *h_f = (float *)malloc(bytes);
    for (int k = 0; k < n * n; k++) h_f[k] = 1.0f;

    float *d_u, *d_unew, *d_f;
    cudaMalloc(&d_u, bytes);
    cudaMalloc(&d_unew, bytes);
    cudaMalloc(&d_f, bytes);
    cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_unew, h_u, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_f, h_f, bytes, cudaMemcpyHostToDevice);

    dim3 bs(16, 16);
    dim3 gs((n + 15) / 16, (n + 15) / 16);
    for (int it = 0; it < iters; it++) {
        poisson_jacobi<<<gs, bs>>>(d_u, d_unew, d_f, n, h2);
        float *t = d_u; d_u = d_unew; d_unew = t;
    }
    cudaMemcpy(h_u, d_u, bytes, cudaMemcpyDeviceToHost);
    printf("u(mid) = %g\n", h_u[(n / 2) * n + n / 2]);

    cudaFree(d_u); cudaFree(d_unew); cudaFree(d_f);
    free(h_u); free(h_f);
    return 0;
}
