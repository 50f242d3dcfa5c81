// Causal attention scores on a 3-D grid: row on x, column on y, head on z; every product computed,
// the mask applied afterwards.
#include <math.h>
__global__ void attn_scores(float* S, const float* Q, const float* K, int H, int T, int D, float scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int h = blockIdx.z;
  if (i < T && j < T) {
    float acc = 0.f;
    for (int d = 0; d < D; ++d) acc += Q[(h * T + i) * D + d] * K[(h * T + j) * D + d];
    S[(h * T + i) * T + j] = j <= i ? scale * acc : -INFINITY;
  }
}
