// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cstdint>
__global__ void mm_i64(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                       int64_t M, int64_t N, int64_t K) {
  const int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t row = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int64_t k = 0; k < K; ++k) acc = fmaf(a[row * K + k], b[k * N + col], acc);
  c[row * N + col] = acc;
}
