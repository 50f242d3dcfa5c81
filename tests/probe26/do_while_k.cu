// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void mm_dowhile(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  int k = 0;
  do {
    sum += A[row * K + k] * B[k * N + col];
    ++k;
  } while (k < K);
  C[row * N + col] = sum;
}
