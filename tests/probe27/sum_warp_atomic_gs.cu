// launch: grid 264 block 256
// sizes: n=1000000
// expect: block-tree|block-atomic
// grid-stride partial sums, a shared-memory tree with a do-nothing warp guard, one atomic per block
__global__ void reduce_gs(const float* __restrict__ in, float* out, int n) {
  __shared__ float buf[256];
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) buf[threadIdx.x] += buf[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, buf[0]);
}
