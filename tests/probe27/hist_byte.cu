// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: private-bins
// 256-bin histogram of bytes, global atomics
__global__ void histo(const unsigned char* data, unsigned int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  while (i < n) {
    atomicAdd(&bins[data[i]], 1u);
    i += stride;
  }
}
