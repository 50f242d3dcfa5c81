// launch: grid cdiv(M, 128) block 128
// sizes: M=2000 N=700
// expect: row-warp|row-block
// y = A x, one thread per row
__global__ void gemv(const float* A, const float* x, float* y, int M, int N) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M) {
    float acc = 0.f;
    for (int c = 0; c < N; ++c) acc += A[r * N + c] * x[c];
    y[r] = acc;
  }
}
