// launch: grid cdiv(M * N, 256) block 256
// sizes: M=1000 N=900 K=700
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void mm1d(float* C, const float* A, const float* B, int M, int N, int K) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int i = t / N;
  int j = t - i * N;
  if (i < M) {
    float sum = 0;
    for (int p = 0; p < K; p++) sum += A[i * K + p] * B[p * N + j];
    C[i * N + j] = sum;
  }
}
