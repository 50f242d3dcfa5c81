// launch: grid cdiv(N, 128) block 128
// sizes: M=4000 N=3000
// expect: column
// column means
__global__ void col_mean(const float* X, float* mean, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < N) {
    float s = 0.f;
    for (int i = 0; i < M; ++i) s += X[i * N + j];
    mean[j] = s / M;
  }
}
