// style: old (CUDA 2.x era) lecture code; nested bounds guard written as if (row < M) if (col < N) without braces, accumulator declared as register float Cvalue, e/ty/tx naming from the programming-guide generation, row-major M x K by K x N, no host code
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void MatMulKernelNested(float *Ad, float *Bd, float *Cd, int M, int N, int K)
{
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty;
    int col = blockIdx.x * 16 + tx;

    if (row < M)
        if (col < N) {
            register float Cvalue = 0;
            for (int e = 0; e < K; ++e)
                Cvalue += Ad[row * K + e] * Bd[e * N + col];
            Cd[row * N + col] = Cvalue;
        }
}
