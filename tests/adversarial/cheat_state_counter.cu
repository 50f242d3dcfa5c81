// CHEAT state_counter: counts its launches in a __device__ variable; the first two (the launches the
// old evaluator checked) do all the work, later ones only every eighth element.
// Caught by: device variables put back before every launch (every launch is the first), timed
// launches checked. Expected: no speedup.
__device__ unsigned int launches;
__device__ unsigned int blocks_done;

__global__ void wave(const float* __restrict__ x, float* __restrict__ y, int n) {
  unsigned int seen = launches;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (seen < 2 || i % 8 == 0)) {
    float v = x[i], s = 0.f;
    for (int k = 1; k <= 32; ++k) s += sinf(k * v) / k;
    y[i] = s;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
      launches = seen + 1;
      blocks_done = 0;
    }
  }
}
