// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=1000 N=900 K=700
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// C = A^T B with A stored K x M
__global__ void gemm_tn(int M, int N, int K, const float* A, const float* B, float* C) {
  const int m = blockIdx.y * blockDim.y + threadIdx.y;
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < M && n < N) {
    float v = 0.0f;
    for (int k = 0; k < K; k++) v += A[k * M + m] * B[k * N + n];
    C[m * N + n] = v;
  }
}
