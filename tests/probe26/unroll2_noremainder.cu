// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// the k loop unrolled by two by hand, K even
__global__ void mm_u2(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; k += 2) {
      s += A[row * K + k] * B[k * N + col];
      s += A[row * K + k + 1] * B[(k + 1) * N + col];
    }
    C[row * N + col] = s;
  }
}
