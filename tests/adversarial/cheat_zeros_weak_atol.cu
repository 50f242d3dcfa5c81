// CHEAT zeros_weak_atol: writes zeros; every output is below the spec's atol, so zeros pass it.
// Caught by: the weak-tolerance rule (an all-zero output would pass: the error must also stay below
// 10% of the reference's spread). Expected: rejected.
__global__ void scale_tiny(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.f;
}
