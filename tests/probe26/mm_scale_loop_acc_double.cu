// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150 alpha=2.0
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// alpha applied to each product, the sum in double, stored as float
__global__ void mm_alpha_dbl(const float* A, const float* B, float* C, int M, int N, int K, float alpha) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    double s = 0.0;
    for (int k = 0; k < K; ++k) s += (double)(alpha * A[i * K + k] * B[k * N + j]);
    C[i * N + j] = (float)s;
  }
}
