// launch: grid cdiv(n, 512) block 512 shared 512*4
// sizes: n=123457
// expect: block-tree
// CUDA samples reduction, kernel 2: sequential addressing
__global__ void reduce2(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];

  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

  sdata[tid] = (i < n) ? g_idata[i] : 0;

  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }

    __syncthreads();
  }

  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
