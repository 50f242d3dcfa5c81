// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m=1000 n=900 k=700 lda=700 ldb=900 ldc=900 alpha=1 beta=1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
extern "C" __global__ void sgemm_rm(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                                    float beta, float* c, int ldc) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m && j < n) {
    float acc = 0;
    for (int p = 0; p < k; ++p) acc += a[i * lda + p] * b[p * ldb + j];
    c[i * ldc + j] = alpha * acc + beta * c[i * ldc + j];
  }
}
