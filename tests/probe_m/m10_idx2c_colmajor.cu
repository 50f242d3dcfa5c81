// style: cuBLAS-docs column-major convention with the IDX2C(i,j,ld) macro, lower-case m/n/k, 1-D grid-stride loop over m*n decoded as i = idx % m, j = idx / m; std::vector host main
// launch: grid 16 block 256
// sizes: m=67 n=129 k=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))

// C (m x n) = A (m x k) * B (k x n), all column-major, leading dims m, k, m
__global__ void gemm_colmajor(int m, int n, int k, const float *A, const float *B, float *C)
{
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < m * n;
         idx += gridDim.x * blockDim.x) {
        int i = idx % m;
        int j = idx / m;
        float sum = 0.0f;
        for (int l = 0; l < k; ++l)
            sum += A[IDX2C(i, l, m)] * B[IDX2C(l, j, k)];
        C[IDX2C(i, j, m)] = sum;
    }
}

int main()
{
    const int m = 67, n = 129, k = 45;
    std::vector<float> a(m * k), b(k * n), c(m * n);
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < m; ++i) a[IDX2C(i, j, m)] = (float)(i * k + j + 1) / 100.0f;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < k; ++i) b[IDX2C(i, j, k)] = (float)((i + j) % 7) - 3.0f;

    float *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, a.size() * sizeof(float));
    cudaMalloc(&d_b, b.size() * sizeof(float));
    cudaMalloc(&d_c, c.size() * sizeof(float));
    cudaMemcpy(d_a, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);

    gemm_colmajor<<<16, 256>>>(m, n, k, d_a, d_b, d_c);
    cudaMemcpy(c.data(), d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
    printf("C(0,0) = %f  C(m-1,n-1) = %f\n", c[IDX2C(0, 0, m)], c[IDX2C(m - 1, n - 1, m)]);

    cudaFree(d_a); cudaFree(d_b); cudaFree(d_c);
    return 0;
}
