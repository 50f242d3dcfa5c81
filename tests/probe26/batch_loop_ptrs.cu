// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: batch=3 M=50 N=60 K=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void bmm_loop(const float* A, const float* B, float* C, int batch, int M, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  for (int b = 0; b < batch; ++b) {
    const float* Ab = A + (size_t)b * M * K;
    const float* Bb = B + (size_t)b * K * N;
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += Ab[m * K + k] * Bb[k * N + n];
    C[(size_t)b * M * N + m * N + n] = s;
  }
}
