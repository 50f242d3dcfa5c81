// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: block-tree|block-atomic
// every thread adds its element to one global total
__global__ void total(const float* x, float* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = (i < n) ? x[i] : 0.0f;
  atomicAdd(result, v);
}
