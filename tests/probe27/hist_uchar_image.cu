// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: private-bins
// 256-bin histogram of an 8-bit grey image
__global__ void histo(const unsigned char* img, unsigned int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[img[i]], 1);
}
