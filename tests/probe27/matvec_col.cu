// launch: grid cdiv(N, 128) block 128
// sizes: M=3000 N=2000
// expect: column
// y = A^T x with A row-major M x N: a thread per column, coalesced
__global__ void gemv_t(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < N) {
    float sum = 0.0f;
    for (int i = 0; i < M; i++) sum += A[(size_t)i * N + j] * x[i];
    y[j] = sum;
  }
}
