// launch: grid cdiv(N, 128) block 128
// sizes: M=3000 N=1000
// expect: column
// column sums of all but the first column
__global__ void colsum_skip(const float* A, float* s, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > 0 && j < N) {
    float t = 0.f;
    for (int i = 0; i < M; ++i) t += A[i * N + j];
    s[j] = t;
  }
}
