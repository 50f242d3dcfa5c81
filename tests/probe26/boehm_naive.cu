// launch: grid cdiv(M, 32), cdiv(N, 32) block 32, 32
// sizes: M=1000 N=900 K=800 alpha=1.5 beta=1.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A,
                            const float *B, float beta, float *C) {
  const uint x = blockIdx.x * blockDim.x + threadIdx.x;
  const uint y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < M && y < N) {
    float tmp = 0.0;
    for (int i = 0; i < K; ++i) {
      tmp += A[x * K + i] * B[i * N + y];
    }
    C[x * N + y] = alpha * tmp + beta * C[x * N + y];
  }
}
