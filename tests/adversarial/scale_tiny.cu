// Honest twin of zeros_weak_atol: y = x * 1e-7 (a scaled gradient: every value far below 1e-6).
__global__ void scale_tiny(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 1e-7f;
}
