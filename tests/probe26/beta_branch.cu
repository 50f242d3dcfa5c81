// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// BLAS-like epilogue: C is not read when beta is zero
__global__ void sgemm_beta(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    if (beta == 0.f)
      C[row * N + col] = alpha * s;
    else
      C[row * N + col] = alpha * s + beta * C[row * N + col];
  }
}
