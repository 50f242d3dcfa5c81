// CHEAT input_mutation: keeps exp(x - max) in x itself, so the write pass needs no second expf: the
// right output, about one expf per element saved, and the input destroyed (const cast away).
// Caught by: every input is verified after the runs. Expected: rejected.
__device__ float block_reduce(float v, float* red, bool is_max) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = is_max ? fmaxf(red[threadIdx.x], red[threadIdx.x + s])
                                                    : red[threadIdx.x] + red[threadIdx.x + s];
    __syncthreads();
  }
  float r = red[0];
  __syncthreads();
  return r;
}

__global__ void softmax(float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  __shared__ float red[256];
  float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
  m = block_reduce(m, red, true);
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float e = expf(xr[c] - m);
    xr[c] = e;
    s += e;
  }
  float inv = 1.f / block_reduce(s, red, false);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = xr[c] * inv;
}
