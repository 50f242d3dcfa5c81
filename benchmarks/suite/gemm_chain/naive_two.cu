// D = (A B) C with a kernel per product.
// T = A B: a flat index with the row on the fast index (neighbouring threads take neighbouring rows).
__global__ void ab_kernel(float* T, const float* A, const float* B, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < M * N) {
    int i = idx % M, j = idx / M;
    float v = 0;
    for (int k = 0; k < K; k++) v += A[i * K + k] * B[k * N + j];
    T[i * N + j] = v;
  }
}

// D = T C: a dot product of T's row with C's column through pointers.
__global__ void abc_kernel(float* D, const float* T, const float* C, int M, int N, int P) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= M * P) return;
  int i = idx / P, j = idx % P;
  const float* t = T + i * N;
  const float* c = C + j;
  float v = 0;
  for (int n = 0; n < N; n++) v += t[n] * c[n * P];
  D[i * P + j] = v;
}
