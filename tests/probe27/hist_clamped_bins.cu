// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000 nbins=64
// expect: private-bins
// histogram of values in [0, 1) into nbins bins
__global__ void histf(const float* v, int* hist, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(v[i] * nbins);
    if (b >= nbins) b = nbins - 1;
    if (b < 0) b = 0;
    atomicAdd(&hist[b], 1);
  }
}
