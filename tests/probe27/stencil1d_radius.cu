// launch: grid cdiv(n, 256) block 256
// sizes: n=100000 R=3
// expect: stencil-tile
// a 1-D stencil of radius R over a padded input (the classic CUDA introduction example, without shared memory)
__global__ void stencil_1d(const int* in, int* out, int n, int R) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int result = 0;
  for (int offset = -R; offset <= R; offset++) result += in[i + R + offset];
  out[i] = result;
}
