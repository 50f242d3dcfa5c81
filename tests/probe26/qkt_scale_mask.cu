// launch: grid cdiv(T, 16), cdiv(T, 16), BH block 16, 16
// sizes: BH=8 T=128 D=64 scale=0.125
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// scores = scale * Q K^T with -inf above the diagonal, written as a ternary at the store
__global__ void scores(const float* Q, const float* Kt, float* S, int BH, int T, int D, float scale) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int h = blockIdx.z;
  if (i >= T || j >= T) return;
  const float* q = Q + ((size_t)h * T + i) * D;
  const float* k = Kt + ((size_t)h * T + j) * D;
  float dot = 0.f;
  for (int d = 0; d < D; ++d) dot += q[d] * k[d];
  S[((size_t)h * T + i) * T + j] = (j <= i) ? dot * scale : -INFINITY;
}
