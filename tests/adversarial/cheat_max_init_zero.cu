// CHEAT max_init_zero: starts each maximum at 0 instead of -inf (the common shortcut, right for any row
// with one positive value: every row of standard-normal data). Caught by: the negative input
// distribution (all values below zero). Expected: rejected.
__global__ void row_max(const float* __restrict__ x, float* __restrict__ m, int rows, int cols) {
  __shared__ float red[256];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float v = 0.f;  // "a max is never below zero in practice"
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v = fmaxf(v, xr[c]);
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) m[blockIdx.x] = red[0];
}
