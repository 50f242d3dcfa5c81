// launch: grid cdiv(N, 16), cdiv(M, 32) block 16, 16
// sizes: M=1000 N=900 K=700
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void mm_two(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * 16 + threadIdx.x;
  int row = blockIdx.y * 32 + threadIdx.y;
  if (col >= N) return;
  float s0 = 0.f, s1 = 0.f;
  for (int k = 0; k < K; ++k) {
    float b = B[k * N + col];
    if (row < M) s0 += A[row * K + k] * b;
    if (row + 16 < M) s1 += A[(row + 16) * K + k] * b;
  }
  if (row < M) C[row * N + col] = s0;
  if (row + 16 < M) C[(row + 16) * N + col] = s1;
}
