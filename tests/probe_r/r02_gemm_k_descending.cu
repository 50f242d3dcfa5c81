// style: Fortran-to-CUDA port from an HPC course homework; k loop runs backwards for (int k = K - 1; k >= 0; --k), tx/ty/bx/by shorthand variables, row from ty, guard written as if (row < M && col < N)
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=53 N=75 K=91
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void mm_kdown(const float *A, const float *B, float *C, int M, int N, int K)
{
    int tx = threadIdx.x, ty = threadIdx.y;
    int bx = blockIdx.x, by = blockIdx.y;
    int row = by * blockDim.y + ty;
    int col = bx * blockDim.x + tx;
    if (row < M && col < N) {
        float s = 0.0f;
        for (int k = K - 1; k >= 0; --k) {
            s += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = s;
    }
}
