// launch: grid cdiv(T, 16), cdiv(T, 16), BH block 16, 16
// sizes: BH=6 T=100 D=32 scale=0.125
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// causal scores: the full dot product, the mask applied at the store
__global__ void scores_masked(const float* q, const float* k, float* s, int BH, int T, int D, float scale) {
  int bh = blockIdx.z;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= T || j >= T) return;
  float acc = 0.0f;
  for (int d = 0; d < D; d++) acc += q[((long long)bh * T + i) * D + d] * k[((long long)bh * T + j) * D + d];
  s[((long long)bh * T + i) * T + j] = (j <= i) ? acc * scale : -INFINITY;
}
