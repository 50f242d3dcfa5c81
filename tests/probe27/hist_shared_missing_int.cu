// launch: grid cdiv(n, 256) block 256
// sizes: n=100000 nbins=64
// expect: private-bins
__global__ void hist(const int* keys, unsigned int* bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = keys[i] % nbins;
    if (b < 0) b += nbins;
    atomicAdd(&bins[b], 1u);
  }
}
