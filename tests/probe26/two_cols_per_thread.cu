// launch: grid cdiv(N, 32), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// each thread computes two outputs 16 columns apart
__global__ void mm2(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * 16 + threadIdx.y;
  int col = blockIdx.x * 32 + threadIdx.x;
  if (row >= M) return;
  float s0 = 0.f, s1 = 0.f;
  for (int k = 0; k < K; ++k) {
    float a = A[row * K + k];
    s0 += a * B[k * N + col];
    if (col + 16 < N) s1 += a * B[k * N + col + 16];
  }
  if (col < N) C[row * N + col] = s0;
  if (col + 16 < N) C[row * N + col + 16] = s1;
}
