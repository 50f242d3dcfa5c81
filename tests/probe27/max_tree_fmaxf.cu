// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: block-tree
// per-block maximum through a shared tree with fmaxf
__global__ void block_max(const float* in, float* out, int n) {
  __shared__ float sm[256];
  int t = threadIdx.x, i = blockIdx.x * 256 + t;
  sm[t] = (i < n) ? in[i] : -3.4e38f;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) sm[t] = fmaxf(sm[t], sm[t + s]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sm[0];
}
