// launch: grid cdiv(M, 128) block 128
// sizes: M=300 N=40 K=64
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// one thread per row of C computes the whole row (a loop over n inside)
__global__ void row_per_thread(const float* A, const float* B, float* C, int M, int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M) return;
  for (int j = 0; j < N; ++j) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
    C[i * N + j] = s;
  }
}
