// style: BLAS SSYRK ('L','N') port from a Gaussian-process / kernel-methods code; C := alpha*A*A^T + beta*C with only the lower triangle updated via if (col <= row), A is n x k row-major, both operands read from the same A (A[row*k+l] and A[col*k+l]), upper triangle left untouched, no host code
// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n=67 k=45 alpha=1.0 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void ssyrk_lower_n(int n, int k, float alpha, const float *A,
                              float beta, float *C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < n && col < n) {
        if (col <= row) {
            float s = 0.0f;
            for (int l = 0; l < k; ++l)
                s += A[row * k + l] * A[col * k + l];
            C[row * n + col] = alpha * s + beta * C[row * n + col];
        }
    }
}
