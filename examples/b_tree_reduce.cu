// b_tree_reduce.cu -- block maximum in shared memory (256 threads per block).
// Defect: the tree runs all 8 steps through shared memory with a __syncthreads() each; in
// the last 6 (s = 32 .. 1) only the first warp works while all 8 warps wait at the barrier.
// Found by: block-reduction-barriers (kernelpro.profilers.rules.reduction).
// Fixed twin: b_tree_reduce_fixed.cu (the last 6 steps in one warp with __shfl_down_sync).
#define BLOCK 256

__global__ void block_max(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float smax[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  smax[tid] = i < n ? in[i] : -INFINITY;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) smax[tid] = fmaxf(smax[tid], smax[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = smax[0];
}

void launch_block_max(const float* in, float* out, int n) {
  block_max<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
}
