// b_sync_reduce.cu -- block sum reduction in shared memory (256 threads per block).
// Defect: the __syncthreads() of each tree step sits inside `if (tid < s)`, so only the
// threads that still add reach the barrier: the others skip it (undefined behaviour: a
// hang or a race on sdata between steps).
// Found by: sync-in-divergent-branch (kernelpro.profilers.rules.sync_divergence).
// Fixed twin: b_sync_reduce_fixed.cu (the barrier moved after the `if`).
#define BLOCK 256

__global__ void block_sum(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
      __syncthreads();
    }
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

void launch_block_sum(const float* in, float* out, int n) {
  block_sum<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
}
