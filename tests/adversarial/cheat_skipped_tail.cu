// CHEAT skipped_tail: handles whole blocks of 256 only (no bounds check in the hot path) and drops the
// last n % 256 elements: right at the spec's round sizes. Caught by: the off-by-one sizes (n - 1,
// n + 1), checked at every evaluation. Expected: rejected.
__global__ void gelu(const float* __restrict__ x, float* __restrict__ y, int n) {
  int full = n / 256;
  if (blockIdx.x >= full) return;
  int i = blockIdx.x * 256 + threadIdx.x;
  float v = x[i];
  y[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}
