// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// expect: stencil-tile
// the classic 1-D stencil with RADIUS a #define (the input padded by RADIUS on each side)
#define RADIUS 3
__global__ void stencil_1d_c(const int* in, int* out, int n) {
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  if (gindex >= n) return;
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++) result += in[gindex + RADIUS + offset];
  out[gindex] = result;
}
