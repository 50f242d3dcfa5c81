// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=64 N=64 K=16 L=8
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// C[i][j] = sum over k and l of A[i][k][l] B[k][l][j]: a product over the merged (k, l)
__global__ void contract2(const float* A, const float* B, float* C, int M, int N, int K, int L) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M || j >= N) return;
  float s = 0.f;
  for (int k = 0; k < K; ++k)
    for (int l = 0; l < L; ++l) s += A[(i * K + k) * L + l] * B[(k * L + l) * N + j];
  C[i * N + j] = s;
}
