// style: Gram-matrix homework (C = A * A^T, full n x n, A row-major n x k), 2D grid with host verification
// launch: grid cdiv(n, 32), cdiv(n, 32) block 32, 32
// sizes: n=187 k=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void gram_kernel(const float *A, float *C, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int p = 0; p < k; p++)
            sum += A[row * k + p] * A[col * k + p];
        C[row * n + col] = sum;
    }
}

int main()
{
    const int n = 187, k = 223;
    size_t szA = (size_t)n * k * sizeof(float), szC = (size_t)n * n * sizeof(float);
    float *A = (float *)malloc(szA), *C = (float *)malloc(szC);
    for (int i = 0; i < n * k; i++) A[i] = sinf((float)i);
    float *dA, *dC;
    cudaMalloc(&dA, szA);
    cudaMalloc(&dC, szC);
    cudaMemcpy(dA, A, szA, cudaMemcpyHostToDevice);
    dim3 threads(32, 32);
    dim3 blocks((n + 31) / 32, (n + 31) / 32);
    gram_kernel<<<blocks, threads>>>(dA, dC, n, k);
    cudaMemcpy(C, dC, szC, cudaMemcpyDeviceToHost);
    double maxerr = 0.0;
    for (int i = 0; i < n; i += 17)
        for (int j = 0; j < n; j += 13) {
            double ref = 0.0;
            for (int p = 0; p < k; p++) ref += (double)A[i * k + p] * A[j * k + p];
            maxerr = fmax(maxerr, fabs(ref - C[i * n + j]));
        }
    printf("max err %g\n", maxerr);
    cudaFree(dA); cudaFree(dC); free(A); free(C);
    return 0;
}
