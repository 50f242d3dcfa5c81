// style: fp16 tiled GEMM (tutorial style): __half tiles in static shared memory, widened with __half2float and accumulated in float, stored with __float2half_rn
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-library
#include <cuda_fp16.h>

#define BLK 16

__global__ void hgemm_tiled_f32acc(const __half *__restrict__ A,
                                   const __half *__restrict__ B,
                                   __half *__restrict__ C,
                                   int M, int N, int K)
{
    __shared__ __half sA[BLK][BLK];
    __shared__ __half sB[BLK][BLK];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * BLK + ty;
    const int col = blockIdx.x * BLK + tx;
    const __half hzero = __float2half(0.0f);

    float acc = 0.0f;
    for (int kt = 0; kt < K; kt += BLK) {
        sA[ty][tx] = (row < M && kt + tx < K) ? A[(size_t)row * K + kt + tx] : hzero;
        sB[ty][tx] = (kt + ty < K && col < N) ? B[(size_t)(kt + ty) * N + col] : hzero;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BLK; ++k)
            acc += __half2float(sA[ty][k]) * __half2float(sB[k][tx]);
        __syncthreads();
    }

    if (row < M && col < N)
        C[(size_t)row * N + col] = __float2half_rn(acc);
}
