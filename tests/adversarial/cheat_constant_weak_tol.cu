// CHEAT constant_weak_tol: every row of a softmax sums to one, so 1/cols everywhere is within the
// spec's atol of every element. Caught by: with a tolerance under which a constant would pass, the
// error must also stay below 10% of the reference's spread (the output must explain 99% of it).
// Expected: rejected.
__global__ void softmax_weak(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  float* yr = y + (size_t)blockIdx.x * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = 1.f / cols;
}
