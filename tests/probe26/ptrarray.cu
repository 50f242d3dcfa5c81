// launch: grid cdiv(N, 16), cdiv(M, 16), batch block 16, 16
// sizes: M=200 N=300 K=100 batch=8
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void bgemm_ptrs(const float* const* A, const float* const* B, float* const* C, int M, int N, int K, int batch) {
  int b = blockIdx.z;
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  if (row < M && col < N) {
    const float* a = A[b];
    const float* bb = B[b];
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += a[row * K + k] * bb[k * N + col];
    C[b][row * N + col] = s;
  }
}
