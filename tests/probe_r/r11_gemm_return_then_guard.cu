// style: Stack Overflow question code "why is my matmul slow"; early if (r >= M) return; for out-of-range rows followed by a second nested guard if (c < N) around the body, accumulator named result, A stride named lda
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=83 N=57 K=73 lda=73
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void matMulKernel(const float *A, const float *B, float *C, int M, int N, int K, int lda)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M)
        return;
    if (c < N) {
        float result = 0;
        for (int k = 0; k < K; k++) {
            result += A[r * lda + k] * B[k * N + c];
        }
        C[r * N + c] = result;
    }
}
