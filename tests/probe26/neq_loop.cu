// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void mm_neq(const float* A, const float* B, float* C, unsigned M, unsigned N, unsigned K) {
  unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (unsigned k = 0; k != K; ++k) sum = sum + A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}
