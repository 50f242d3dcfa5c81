// launch: grid cdiv(n, 256) block 256
// sizes: n=100000 bins=256
// expect: private-bins
// a byte histogram straight to global memory
__global__ void hist256(const unsigned char* data, unsigned int* hist, int n, int bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  while (i < n) {
    atomicAdd(&hist[data[i]], 1u);
    i += stride;
  }
}
