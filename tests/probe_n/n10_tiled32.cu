// style: CUDA-course tiled SGEMM -- TILE as a template int, static __shared__ tiles with zero-filled tails, #pragma unroll inner loop, no register tile
// launch: grid cdiv(N, 32), cdiv(M, 32) block 32, 32
// sizes: M=67 N=129 K=45
// template: 32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

template <int TILE>
__global__ void matmul_shared(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float value = 0.0f;

    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + tx;
        int bk = t * TILE + ty;
        As[ty][tx] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[ty][tx] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int e = 0; e < TILE; ++e)
            value += As[ty][e] * Bs[e][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = value;
}

template __global__ void matmul_shared<32>(const float *, const float *, float *, int, int, int);
