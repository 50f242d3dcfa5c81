// C = A A^T through two row pointers; a flat index, rows on the fast index.
__global__ void gram(float* C, const float* A, int N, int K) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * N) return;
  const int row = idx % N, col = idx / N;
  const float* x = A + row * K;
  const float* y = A + col * K;
  float acc = 0.f;
  for (int k = 0; k < K; k++) acc += x[k] * y[k];
  C[row * N + col] = acc;
}
