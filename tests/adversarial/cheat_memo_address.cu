// CHEAT memo_address: remembers the addresses of its input and output and skips the work when it is
// called on the same buffers again (assuming their contents did not change).
// Caught by: device variables put back before every launch, outputs poisoned and checked at timed
// launches, distinct values in every input set. Expected: no speedup.
__device__ const float* last_x;
__device__ float* last_y;
__device__ unsigned int blocks_done;

__global__ void wave(const float* __restrict__ x, float* __restrict__ y, int n) {
  if (last_x == x && last_y == y) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i], s = 0.f;
    for (int k = 1; k <= 32; ++k) s += sinf(k * v) / k;
    y[i] = s;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
      last_x = x; last_y = y;
      blocks_done = 0;
    }
  }
}
