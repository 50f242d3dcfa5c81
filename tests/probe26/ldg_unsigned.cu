// launch: grid cdiv(n, 32), cdiv(m, 32) block 32, 32
// sizes: m=1000 n=900 k=700
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void sgemm_ldg(unsigned m, unsigned n, unsigned k, const float* a, const float* b, float* c) {
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (y < m && x < n) {
    float t = 0;
    for (unsigned i = 0; i < k; ++i) t += __ldg(&a[y * k + i]) * __ldg(&b[i * n + x]);
    c[y * n + x] = t;
  }
}
