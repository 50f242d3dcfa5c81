// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M N K
// reference: C = A @ B, the k loop unrolled by hand (one statement per step) before its remainder loop
// recognise: the remainder loop alone (reroll_loops), its counter moved into its header
__global__ void mm_unrolled(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    int k;
    for (k = 0; k + 2 < K; k += 3) {
      s += A[row * K + k + 2] * B[(k + 2) * N + col];
      s += A[row * K + k] * B[k * N + col];
      s += A[row * K + (k + 1)] * B[(k + 1) * N + col];
    }
    for (; k < K; k++) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
