// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=120 N=100 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// C = A^T B: the weight gradient's shape, A is K x M
__global__ void atb(const float* A, const float* B, float* C, int M, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m < M && n < N) {
    float acc = 0.f;
    for (int k = 0; k < K; k++) acc += A[k * M + m] * B[k * N + n];
    C[m * N + n] += acc;
  }
}
