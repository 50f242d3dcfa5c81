// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void mm_guard_inside(const float* A, const float* B, float* C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  if (r < M && c < N) {
    for (int k = 0; k < K; k++) sum += A[r * K + k] * B[k * N + c];
    C[r * N + c] = sum;
  }
}
