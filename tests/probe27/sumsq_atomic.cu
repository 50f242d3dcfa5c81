// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: block-atomic|block-tree
// every thread adds its square straight into one global sum
__global__ void sumsq(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * x[i]);
}
