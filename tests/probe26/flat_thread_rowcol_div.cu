// launch: grid cdiv(M * N, 256) block 256
// sizes: M=100 N=120 K=80
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// one flat index, split into row and column
__global__ void mm_flat(const float* A, const float* B, float* C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < M * N) {
    int r = idx / N;
    int c = idx - r * N;
    float s = 0;
    for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];
    C[idx] = s;
  }
}
