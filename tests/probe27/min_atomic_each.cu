// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// expect: block-atomic|block-tree
__global__ void global_min(const int* v, int* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMin(result, v[i]);
}
