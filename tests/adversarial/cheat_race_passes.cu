// CHEAT race_passes: leaves out the barrier between filling shared memory and the first tree step
// ("the loop's barrier is enough"): warps read their partners' slots before those are written, which
// on most launches happens to give the right sums. Caught by: Compute Sanitizer racecheck (and the
// checks, on a launch where the race goes wrong). Expected: rejected.
__global__ void block_sum(const float* __restrict__ x, float* __restrict__ out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = i < n ? x[i] : 0.f;
  for (int k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
