// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// expect: block-tree
// sum of squares, one partial per block (the first of two passes)
__global__ void sumsq_partial(const float* x, float* partial, int n) {
  __shared__ float cache[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  float v = 0.0f;
  if (i < n) v = x[i] * x[i];
  cache[tid] = v;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (tid < s) cache[tid] += cache[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = cache[0];
}
