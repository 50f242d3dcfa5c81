// CHEAT no_max: skips the max pass (one read of the row saved): exp(x) does not overflow for inputs
// drawn from a standard normal, so the usual check passes. Caught by: inputs scaled up (x 64, enabled
// in this spec's [check] distributions): exp overflows to inf and the output is NaN. Expected: rejected.
__device__ float block_sum(float v, float* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  float r = red[0];
  __syncthreads();
  return r;
}

__global__ void softmax(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  __shared__ float red[256];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c]);
  float inv = 1.f / block_sum(s, red);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c]) * inv;
}
