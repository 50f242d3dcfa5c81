// launch: grid cdiv(batch * M * N, 256) block 256
// sizes: batch=3 M=50 N=60 K=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void bmm_flat(const float* A, const float* B, float* C, int batch, int M, int N, int K) {
  size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)batch * M * N) return;
  int n = idx % N;
  int m = (idx / N) % M;
  int bt = idx / ((size_t)M * N);
  float s = 0;
  for (int k = 0; k < K; ++k) s += A[((size_t)bt * M + m) * K + k] * B[((size_t)bt * K + k) * N + n];
  C[idx] = s;
}
