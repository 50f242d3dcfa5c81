// Honest twin of max_init_zero: the maximum of each row, one block of 256 threads per row.
__global__ void row_max(const float* __restrict__ x, float* __restrict__ m, int rows, int cols) {
  __shared__ float red[256];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float v = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v = fmaxf(v, xr[c]);
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) m[blockIdx.x] = red[0];
}
