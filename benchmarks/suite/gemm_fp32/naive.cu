// C = alpha A B + beta C, one output per thread, the row index on threadIdx.x: the first way many
// people write it (the lanes of a warp take consecutive rows, so A, B's column and C are strided).
__global__ void sgemm(float* C, const float* A, const float* B, int M, int N, int K, float alpha, float beta) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < M && y < N) {
    float tmp = 0.0f;
    for (int i = 0; i < K; ++i) {
      tmp += A[x * K + i] * B[i * N + y];
    }
    C[x * N + y] = alpha * tmp + beta * C[x * N + y];
  }
}
