// style: numerical-linear-algebra class, SYR2K-like C = alpha*(A*B^T + B*A^T) in a single k loop, both A and B row-major n x k
// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n=187 k=223 alpha=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

__global__ void syr2k_full(const float* A, const float* B, float* C, int n, int k, float alpha)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n)
    {
        float acc = 0.0f;
        for (int l = 0; l < k; l++)
        {
            acc += A[i * k + l] * B[j * k + l] + B[i * k + l] * A[j * k + l];
        }
        C[i * n + j] = alpha * acc;
    }
}
