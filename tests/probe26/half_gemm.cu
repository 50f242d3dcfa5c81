// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=100
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
#include <cuda_fp16.h>
__global__ void hgemm_naive(const half* A, const half* B, half* C, int M, int N, int K) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < M && c < N) {
        float s = 0.f;
        for (int k = 0; k < K; ++k) s += __half2float(A[r * K + k]) * __half2float(B[k * N + c]);
        C[r * N + c] = __float2half(s);
    }
}
