// C = alpha A B + beta C with the sum kept in C itself: scaled by beta first, then alpha * a * b
// added in global memory at every step of the loop.
__global__ void sgemm(float* C, const float* A, const float* B, int M, int N, int K, float alpha, float beta) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    C[i * N + j] = beta * C[i * N + j];
    for (int k = 0; k < K; ++k) {
      C[i * N + j] += alpha * A[i * K + k] * B[k * N + j];
    }
  }
}
