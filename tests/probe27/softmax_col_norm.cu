// launch: grid cdiv(N, 256) block 256
// sizes: M=1000 N=3000
// expect: column
// each column divided by its sum (two passes down the column)
__global__ void col_normalize(float* A, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= N) return;
  float s = 0.f;
  for (int i = 0; i < M; ++i) s += A[i * N + j];
  for (int i = 0; i < M; ++i) A[i * N + j] /= s;
}
