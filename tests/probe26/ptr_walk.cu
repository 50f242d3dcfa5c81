// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void mm_ptrwalk(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* pa = A + row * K;
  const float* pb = B + col;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) {
    acc += (*pa) * (*pb);
    ++pa;
    pb += N;
  }
  C[row * N + col] = acc;
}
