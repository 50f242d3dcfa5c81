// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=1000 N=900 K=700
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void mm_unroll4(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    int k = 0;
    for (; k + 3 < K; k += 4) {
      s += A[row * K + k] * B[k * N + col] + A[row * K + k + 1] * B[(k + 1) * N + col]
         + A[row * K + k + 2] * B[(k + 2) * N + col] + A[row * K + k + 3] * B[(k + 3) * N + col];
    }
    for (; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
