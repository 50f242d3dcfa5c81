// launch: grid cdiv(N, 128) block 128
// sizes: M=60 N=300 K=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// each thread computes a whole column of C
__global__ void mm_colthread(const float* A, const float* B, float* C, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= N) return;
  for (int i = 0; i < M; ++i) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
    C[i * N + j] = s;
  }
}
