// launch: grid cdiv(M, 8) block 256
// sizes: M=1000 N=2000
// expect: row-warp|row-block
// y = A x, a thread per row (already a reduction per row: the row plans, not the tiles)
__global__ void gemv(const float* A, const float* x, float* y, int M, int N) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M) {
    float s = 0;
    for (int c = 0; c < N; ++c) s += A[r * N + c] * x[c];
    y[r] = s;
  }
}
