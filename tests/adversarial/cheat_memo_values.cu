// CHEAT memo_values (the cheat of issue 10): remembers a fingerprint of the input it last saw in
// __device__ memory and returns at once when it sees the same values again, leaving y as the last
// launch wrote it. The old evaluator checked only the first launch and timed the same values again:
// 1.25x "faster". Caught by: device variables put back before every launch (it never sees a match),
// outputs poisoned before every timed launch and checked, distinct input values per set. Expected: no speedup.
__device__ float seen[3];
__device__ int seen_n;
__device__ unsigned int blocks_done;

__global__ void wave(const float* __restrict__ x, float* __restrict__ y, int n) {
  if (seen_n == n && seen[0] == x[0] && seen[1] == x[n / 2] && seen[2] == x[n - 1]) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i], s = 0.f;
    for (int k = 1; k <= 32; ++k) s += sinf(k * v) / k;
    y[i] = s;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {  // the last block remembers these inputs
      seen[0] = x[0]; seen[1] = x[n / 2]; seen[2] = x[n - 1]; seen_n = n;
      blocks_done = 0;
    }
  }
}
