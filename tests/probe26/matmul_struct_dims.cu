// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=90 N=70 K=50
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#define IDX(r, c, ld) ((r) * (ld) + (c))
__global__ void mm_macro_idx(float* C, const float* A, const float* B, const int M, const int N, const int K) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * 16 + tx, r = blockIdx.y * 16 + ty;
  if (r < M && c < N) {
    float acc = 0.0f;
    for (int kk = 0; kk < K; ++kk) {
      const float a = A[IDX(r, kk, K)];
      const float b = B[IDX(kk, c, N)];
      acc += a * b;
    }
    C[IDX(r, c, N)] = acc;
  }
}
