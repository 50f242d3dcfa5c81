// style: naive HGEMM from a blog (half inputs converted with __half2float, float accumulate and output)
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=197 N=235 K=171
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_fp16.h>

__global__ void hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B,
                            float* __restrict__ C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
        C[row * N + col] = acc;
    }
}
