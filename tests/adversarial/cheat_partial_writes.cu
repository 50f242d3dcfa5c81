// CHEAT partial_writes: writes only the positive results and trusts the output buffer to start at zero
// (half the stores saved). Caught by: outputs poisoned (NaN) before every run. Expected: rejected.
__global__ void relu(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    if (v > 0.f) y[i] = v;
  }
}
