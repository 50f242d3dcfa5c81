// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void mm64(const double* __restrict__ A, const double* __restrict__ B, double* __restrict__ C, size_t M, size_t N, size_t K) {
  size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t r = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
  if (r < M && c < N) {
    double t = 0.0;
    for (size_t k = 0; k < K; ++k) t = fma(A[r * K + k], B[k * N + c], t);
    C[r * N + c] = t;
  }
}
