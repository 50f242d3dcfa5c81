// launch: grid 120 block 512
// sizes: n=1000000
// expect: block-tree|block-atomic
__global__ void maxabs(const float* x, float* partial, int n) {
  __shared__ float s[512];
  int t = threadIdx.x;
  float m = 0.0f;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) m = fmaxf(m, fabsf(x[i]));
  s[t] = m;
  __syncthreads();
  for (int k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) s[t] = fmaxf(s[t], s[t + k]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
