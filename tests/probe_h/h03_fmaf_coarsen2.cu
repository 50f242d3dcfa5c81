// style: PMPP-style thread coarsening (each thread owns two output columns, col and col+blockDim.x) with fmaf accumulation
// launch: grid cdiv(n, 64), cdiv(m, 16) block 32, 16
// sizes: m=187 n=141 k=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define COARSE 2

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// c (m x n) = a (m x k) * b (k x n), row-major
__global__ void sgemm_fma_coarse(int m, int n, int k,
                                 const float *a, const float *b, float *c)
{
    const int row  = blockIdx.y * blockDim.y + threadIdx.y;
    const int col0 = blockIdx.x * (blockDim.x * COARSE) + threadIdx.x;
    if (row >= m) return;

    float acc[COARSE];
#pragma unroll
    for (int u = 0; u < COARSE; ++u) acc[u] = 0.0f;

    for (int p = 0; p < k; ++p) {
        const float av = a[row * k + p];
#pragma unroll
        for (int u = 0; u < COARSE; ++u) {
            const int col = col0 + u * blockDim.x;
            if (col < n)
                acc[u] = fmaf(av, b[p * n + col], acc[u]);
        }
    }

#pragma unroll
    for (int u = 0; u < COARSE; ++u) {
        const int col = col0 + u * blockDim.x;
        if (col < n)
            c[row * n + col] = acc[u];
    }
}

int main(int argc, char **argv)
{
    int m = 187, n = 141, k = 223;
    std::size_t bytesA = sizeof(float) * m * k;
    std::size_t bytesB = sizeof(float) * k * n;
    std::size_t bytesC = sizeof(float) * m * n;

    float *ha = (float *)malloc(bytesA), *hb = (float *)malloc(bytesB), *hc = (float *)malloc(bytesC);
    for (int i = 0; i < m * k; ++i) ha[i] = rand() / (float)RAND_MAX - 0.5f;
    for (int i = 0; i < k * n; ++i) hb[i] = rand() / (float)RAND_MAX - 0.5f;

    float *da, *db, *dc;
    CUDA_CHECK(cudaMalloc(&da, bytesA));
    CUDA_CHECK(cudaMalloc(&db, bytesB));
    CUDA_CHECK(cudaMalloc(&dc, bytesC));
    CUDA_CHECK(cudaMemcpy(da, ha, bytesA, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, hb, bytesB, cudaMemcpyHostToDevice));

    dim3 block(32, 16);
    dim3 grid((n + 32 * COARSE - 1) / (32 * COARSE), (m + 15) / 16);
    sgemm_fma_coarse<<<grid, block>>>(m, n, k, da, db, dc);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(hc, dc, bytesC, cudaMemcpyDeviceToHost));

    double maxerr = 0.0;
    for (int i = 0; i < m; i += 17)
        for (int j = 0; j < n; j += 13) {
            double r = 0.0;
            for (int p = 0; p < k; ++p) r += (double)ha[i * k + p] * hb[p * n + j];
            maxerr = fmax(maxerr, fabs(r - hc[i * n + j]));
        }
    printf("max err = %g\n", maxerr);

    cudaFree(da); cudaFree(db); cudaFree(dc);
    free(ha); free(hb); free(hc);
    return 0;
}
