// style: naive fp16 GEMM (row-major __half A, B, C) accumulating in float via __half2float / __float2half, as in mixed-precision tutorials
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=187 N=141 K=223 alpha=1.0 beta=0.0
// expect: matmul-tiles|matmul-wmma|matmul-library
#include <cuda_fp16.h>

__global__ void hgemm_naive(int M, int N, int K, float alpha,
                            const __half *A, const __half *B,
                            float beta, __half *C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.f;
        for (int k = 0; k < K; ++k) {
            sum += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
        }
        float c = __half2float(C[row * N + col]);
        C[row * N + col] = __float2half(alpha * sum + beta * c);
    }
}
