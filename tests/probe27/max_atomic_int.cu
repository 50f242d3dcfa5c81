// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// expect: block-atomic|block-tree
// the largest element of an int array: one atomicMax per thread
__global__ void max_atomic(const int* a, int* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(result, a[i]);
}
