// style: "CUDA optimization tips" blog sgemm; const __restrict__ pointers read through __ldg(&A[...]), #pragma unroll 4 on the k loop, ix/iy names with iy the row
// launch: grid cdiv(N, 32), cdiv(M, 4) block 32, 4
// sizes: M=59 N=101 K=87
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void sgemm_ldg(const float * __restrict__ A, const float * __restrict__ B,
                          float * __restrict__ C, const int M, const int N, const int K)
{
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix < N && iy < M) {
        float tmp = 0.0f;
#pragma unroll 4
        for (int k = 0; k < K; ++k) {
            tmp += __ldg(&A[iy * K + k]) * __ldg(&B[k * N + ix]);
        }
        C[iy * N + ix] = tmp;
    }
}
