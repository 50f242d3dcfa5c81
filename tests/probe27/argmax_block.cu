// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// expect: block-tree
// the largest value and where it is, per block (a pair carried through the tree)
__global__ void argmax_blocks(const float* x, float* bmax, int* barg, int n) {
  __shared__ float sv[256];
  __shared__ int si[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  sv[t] = i < n ? x[i] : -INFINITY;
  si[t] = i < n ? i : -1;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s && sv[t + s] > sv[t]) {
      sv[t] = sv[t + s];
      si[t] = si[t + s];
    }
    __syncthreads();
  }
  if (t == 0) { bmax[blockIdx.x] = sv[0]; barg[blockIdx.x] = si[0]; }
}
