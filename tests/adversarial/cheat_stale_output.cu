// CHEAT stale_output: does nothing where the output already holds a finite value. In the field an
// output buffer handed back by the allocator still held the reference's (or an earlier launch's)
// answer; the old evaluator timed and measured energy on buffers that held the checked answer.
// Caught by: outputs poisoned before every timed launch; the energy run writes into the buffers of the
// next input set (which hold another set's answer) and checks them. Expected: no speedup (rejected
// when energy is measured).
__global__ void wave(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (isfinite(y[i])) return;  // "already done"
  float v = x[i], s = 0.f;
  for (int k = 1; k <= 32; ++k) s += sinf(k * v) / k;
  y[i] = s;
}
