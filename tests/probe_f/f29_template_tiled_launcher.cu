// style: templated shared-memory tiled matmul <T, TILE> with a templated host launcher instantiated for float (TILE = 16)
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=139 N=167 K=181
// template: float, 16
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

template <typename T, int TILE>
__global__ void matmul_tiled(const T *__restrict__ A, const T *__restrict__ B,
                             T *__restrict__ C, int M, int N, int K)
{
    __shared__ T sA[TILE][TILE];
    __shared__ T sB[TILE][TILE];

    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;

    T acc = T(0);
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        const int ak = t * TILE + threadIdx.x;
        const int bk = t * TILE + threadIdx.y;
        sA[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : T(0);
        sB[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : T(0);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE; ++kk)
            acc += sA[threadIdx.y][kk] * sB[kk][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

template <typename T>
cudaError_t launch_matmul(const T *A, const T *B, T *C, int M, int N, int K, cudaStream_t stream)
{
    constexpr int TILE = 16;
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_tiled<T, TILE><<<grid, block, 0, stream>>>(A, B, C, M, N, K);
    return cudaGetLastError();
}

template cudaError_t launch_matmul<float>(const float *, const float *, float *, int, int, int, cudaStream_t);
