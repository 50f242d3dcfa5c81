// b_tree_reduce_fixed.cu -- block maximum in shared memory (256 threads per block).
// Fixed twin of b_tree_reduce.cu: shared-memory steps only while s > 32, then the first
// warp finishes with __shfl_down_sync (3 barriers instead of 8, the same result).
// block-reduction-barriers stays silent here.
#define BLOCK 256

__global__ void block_max(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float smax[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  smax[tid] = i < n ? in[i] : -INFINITY;
  __syncthreads();
  for (int s = BLOCK / 2; s > 32; s >>= 1) {
    if (tid < s) smax[tid] = fmaxf(smax[tid], smax[tid + s]);
    __syncthreads();
  }
  if (tid < 32) {
    float v = fmaxf(smax[tid], smax[tid + 32]);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, o));
    if (tid == 0) out[blockIdx.x] = v;
  }
}

void launch_block_max(const float* in, float* out, int n) {
  block_max<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
}
