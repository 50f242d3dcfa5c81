// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// C = A B - A2 B2 in one loop (a difference of two products, as in a complex product's real part)
__global__ void mm_re(const float* Ar, const float* Ai, const float* Br, const float* Bi, float* Cr, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += Ar[i * K + k] * Br[k * N + j] - Ai[i * K + k] * Bi[k * N + j];
    Cr[i * N + j] = s;
  }
}
