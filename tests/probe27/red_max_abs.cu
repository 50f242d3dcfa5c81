// launch: grid cdiv(n, 512) block 512 shared 512*4
// sizes: n=123457
// expect: block-tree|block-atomic
// the largest magnitude per block (for a norm), sequential addressing in dynamic shared memory
__global__ void absmax_block(const float* x, float* partial, int n) {
  extern __shared__ float sm[];
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  sm[tid] = gid < n ? fabsf(x[gid]) : 0.0f;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (tid < s) sm[tid] = fmaxf(sm[tid], sm[tid + s]);
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sm[0];
}
