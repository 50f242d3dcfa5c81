// style: Stack Overflow "hand-unrolled naive matrix multiply" answer; __restrict__ pointers, per-thread row pointer arow = A + row*K, k loop unrolled by 4 by hand into one accumulator with a scalar remainder loop, guard if (row < M && col < N)
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// C[M x N] = A[M x K] * B[K x N], all row-major
__global__ void matmul_unroll4(const float* __restrict__ A,
                               const float* __restrict__ B,
                               float* __restrict__ C,
                               int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < M && col < N) {
        const float* arow = A + row * K;
        float sum = 0.0f;
        int k = 0;
        // main body, 4 at a time
        for (; k + 4 <= K; k += 4) {
            sum += arow[k]     * B[(k)     * N + col];
            sum += arow[k + 1] * B[(k + 1) * N + col];
            sum += arow[k + 2] * B[(k + 2) * N + col];
            sum += arow[k + 3] * B[(k + 3) * N + col];
        }
        // leftovers
        for (; k < K; k++) {
            sum += arow[k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}
