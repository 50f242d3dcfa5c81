// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void mm_rev(const float* a, const float* b, float* c, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0;
    for (int k = K - 1; k >= 0; --k) s += a[i * K + k] * b[k * N + j];
    c[i * N + j] = s;
  }
}
