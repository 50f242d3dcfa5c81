// style: HeCBench-like double-precision naive GEMM with __restrict__, __ldg loads and #pragma unroll on the k loop
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=133 N=157 K=191
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
__global__ void dgemm_ldg(const double *__restrict__ A,
                          const double *__restrict__ B,
                          double *__restrict__ C,
                          const int M, const int N, const int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        double acc = 0.0;
#pragma unroll 4
        for (int k = 0; k < K; ++k) {
            acc += __ldg(&A[row * K + k]) * __ldg(&B[k * N + col]);
        }
        C[row * N + col] = acc;
    }
}
