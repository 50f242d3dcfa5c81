// CHEAT static_cache: keeps every result in a `static` array of the kernel (device memory that
// outlives the launch) with a fingerprint of the input, and replays it when the same input comes
// back: right answers, written even into a poisoned output, at the cost of a copy.
// Caught by: device variables (static locals included) put back before every launch, distinct input
// values in every set. Expected: no speedup.
#define CAP (1 << 22)

__global__ void wave(const float* __restrict__ x, float* __restrict__ y, int n) {
  static __device__ float cache[CAP];
  static __device__ float key[3];
  static __device__ unsigned int blocks_done;
  bool hit = n <= CAP && key[0] == x[0] && key[1] == x[n / 2] && key[2] == x[n - 1];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (hit) {
      y[i] = cache[i];
    } else {
      float v = x[i], s = 0.f;
      for (int k = 1; k <= 32; ++k) s += sinf(k * v) / k;
      y[i] = s;
      if (i < CAP) cache[i] = s;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
      key[0] = x[0]; key[1] = x[n / 2]; key[2] = x[n - 1];
      blocks_done = 0;
    }
  }
}
