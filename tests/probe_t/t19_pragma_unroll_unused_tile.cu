// style: half-finished optimization attempt left in a research repo; constexpr int TILE = 16 declared at file scope but never used (no shared memory), #pragma unroll 8 on the plain k loop, fmaf accumulation, sizes M/N/K, no host code
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

constexpr int TILE = 16;   // TODO: shared-memory tiling

__global__ void gemm_unroll8(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
#pragma unroll 8
        for (int k = 0; k < K; ++k) {
            acc = fmaf(A[row * K + k], B[k * N + col], acc);
        }
        C[row * N + col] = acc;
    }
}
