// launch: grid cdiv(N, 128) block 128
// sizes: M=400 N=600
// expect: column
// y = A^T x with A row-major M x N: a thread per column
__global__ void gemv_t(const float* A, const float* x, float* y, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= N) return;
  float s = 0.f;
  for (int i = 0; i < M; ++i) s += A[i * N + j] * x[i];
  y[j] = s;
}
