// launch: grid 256 block 256 shared 1024
// sizes: n=1000000
// expect: block-tree|block-atomic
// grid-stride partial sums, then a shared-memory tree, one partial per block
__global__ void reduce_partial(const float* in, float* partial, int n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) s += in[i];
  sdata[tid] = s;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) sdata[tid] += sdata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}
