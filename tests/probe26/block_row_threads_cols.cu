// launch: grid M block 128
// sizes: M=300 N=500 K=200
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// a block per output row, its threads striding the columns
__global__ void mm_rowblock(const float* A, const float* B, float* C, int M, int N, int K) {
  int i = blockIdx.x;
  for (int j = threadIdx.x; j < N; j += blockDim.x) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
    C[i * N + j] = s;
  }
}
