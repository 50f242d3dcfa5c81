// style: scientific-code SYR2K (C = alpha*(A*B^T + B*A^T) + beta*C, full square output) spelled with an IDX(r,c,ld) indexing macro and a small __device__ helper that returns the dot product of two rows, called twice per output
// launch: grid cdiv(N, 16), cdiv(N, 16) block 16, 16
// sizes: N=77 M=51 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

#define IDX(r, c, ld) ((r) * (ld) + (c))

// dot product of row i of X with row j of Y, both with m columns
__device__ float row_dot(const float *X, const float *Y, int i, int j, int m)
{
    float s = 0.0f;
    for (int k = 0; k < m; ++k)
        s += X[IDX(i, k, m)] * Y[IDX(j, k, m)];
    return s;
}

// A, B: N x M row-major.  C: N x N row-major.
__global__ void syr2k_kernel(const float *A, const float *B, float *C,
                             float alpha, float beta, int N, int M)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= N || j >= N) return;

    float ab = row_dot(A, B, i, j, M);   // (A * B^T)[i][j]
    float ba = row_dot(B, A, i, j, M);   // (B * A^T)[i][j]
    C[IDX(i, j, N)] = alpha * (ab + ba) + beta * C[IDX(i, j, N)];
}
