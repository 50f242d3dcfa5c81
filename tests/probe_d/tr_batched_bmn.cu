// launch: grid cdiv(N, 32), cdiv(M, 8), B block 32, 8
// sizes: B=6 M=130 N=210
// expect: transpose-tile
// Batched last-two-dims transpose (B, M, N) -> (B, N, M), e.g. torch .transpose(1, 2).contiguous(); size_t indices, blockIdx.z batch
#include <cuda_runtime.h>
#include <cstddef>

__global__ void batched_transpose(const float* __restrict__ src, float* __restrict__ dst,
                                  int B, int M, int N)
{
    const size_t n = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t m = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    const size_t b = blockIdx.z;
    if (b >= (size_t)B || m >= (size_t)M || n >= (size_t)N) return;

    const size_t plane = (size_t)M * N;
    dst[b * plane + n * M + m] = src[b * plane + m * N + n];
}

void launch_batched_transpose(const float* src, float* dst, int B, int M, int N, cudaStream_t s)
{
    const dim3 block(32, 8, 1);
    const dim3 grid((N + 31) / 32, (M + 7) / 8, B);
    batched_transpose<<<grid, block, 0, s>>>(src, dst, B, M, N);
}
