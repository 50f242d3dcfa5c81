// b_sync_reduce_fixed.cu -- block sum reduction in shared memory (256 threads per block).
// Fixed twin of b_sync_reduce.cu: every thread of the block reaches each barrier; only
// the addition is conditional. sync-in-divergent-branch stays silent here.
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
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

void launch_block_sum(const float* in, float* out, int n) {
  block_sum<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
}
