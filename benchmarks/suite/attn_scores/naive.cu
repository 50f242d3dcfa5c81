// Causal attention scores, one output per thread: S[h][i][j] = scale * (Q[h][i] . K[h][j]) for
// j <= i, -inf above the diagonal.
#include <math.h>

__global__ void attn_scores(float* S, const float* Q, const float* K, int H, int T, int D, float scale) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * T * T) return;
  int h = idx / (T * T);
  int i = (idx / T) % T;
  int j = idx % T;
  if (j > i) {
    S[idx] = -INFINITY;
    return;
  }
  const float* q = Q + (h * T + i) * D;
  const float* k = K + (h * T + j) * D;
  float dot = 0.0f;
  for (int d = 0; d < D; d++) dot += q[d] * k[d];
  S[idx] = dot * scale;
}
