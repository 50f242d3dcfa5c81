// launch: grid cdiv(N, 32), cdiv(M, 32) block 32, 32
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void mm_ll(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c,
                      long M, long N, long K) {
  const long r = (long)blockIdx.y * blockDim.y + threadIdx.y;
  const long q = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && q < N) {
    double t = 0.0;
    for (long k = 0; k < K; ++k) t = fma(a[r * K + k], b[k * N + q], t);
    c[r * N + q] = t;
  }
}
