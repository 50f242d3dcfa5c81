// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=300 n=200 k=150 lda=300 ldb=150 ldc=300 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// BLAS-style sgemm, column-major, beta == 0 avoids reading C
__global__ void sgemm_nn(int m, int n, int k, float alpha, const float* __restrict__ A, int lda,
                         const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  float s = 0.0f;
  for (int l = 0; l < k; ++l) s += A[i + l * lda] * B[l + j * ldb];
  if (beta == 0.0f) C[i + j * ldc] = alpha * s;
  else C[i + j * ldc] = alpha * s + beta * C[i + j * ldc];
}
