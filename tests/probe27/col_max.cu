// launch: grid cdiv(N, 256) block 256
// sizes: M=3000 N=2000
// expect: column
// the largest value of each column
__global__ void col_max(const float* A, float* mx, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= N) return;
  float m = A[j];
  for (int i = 1; i < M; ++i) m = fmaxf(m, A[i * N + j]);
  mx[j] = m;
}
