// launch: grid cdiv(N, 16), cdiv(M, 16) block 256
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// a 16 x 16 output tile per block with a 1-D block of 256 threads (row = tid / 16, col = tid % 16)
__global__ void mm_tid(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * 16 + threadIdx.x / 16;
  int col = blockIdx.x * 16 + threadIdx.x % 16;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
