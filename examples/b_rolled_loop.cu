// b_rolled_loop.cu -- row softmax, one warp per row of COLS = 1024 floats.
// Defect: the loops over the PER_LANE = 32 elements of each lane have a compile-time
// trip count but no `#pragma unroll`; nvcc 13 leaves the two expf loops rolled (a
// backward branch and a loop-counter test on every pass).
// Found by: rolled-constant-loop (kernelpro.profilers.rules.unroll).
// Fixed twin: b_rolled_loop_fixed.cu (`#pragma unroll` before each loop).
// (slow-math-in-loop also reports the accurate expf calls: a separate finding.)
#define COLS 1024
#define PER_LANE (COLS / 32)

__global__ void warp_softmax(const float* __restrict__ x, float* __restrict__ y, int rows) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  int lane = threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * COLS;
  float m = -INFINITY;
  for (int j = 0; j < PER_LANE; ++j) {
    m = fmaxf(m, xr[lane + 32 * j]);
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.f;
  for (int j = 0; j < PER_LANE; ++j) {
    s += expf(xr[lane + 32 * j] - m);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  float inv = 1.f / s;
  for (int j = 0; j < PER_LANE; ++j) {
    y[(size_t)row * COLS + lane + 32 * j] = expf(xr[lane + 32 * j] - m) * inv;
  }
}

void launch_warp_softmax(const float* x, float* y, int rows) {
  warp_softmax<<<(rows + 7) / 8, dim3(32, 8)>>>(x, y, rows);
}
