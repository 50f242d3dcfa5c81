// launch: grid cdiv(W, 32), cdiv(H, 8) block 32, 8
// sizes: W=1000 H=700
// expect: stencil-tile
__global__ void lap(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < W - 1 && y >= 1 && y < H - 1) {
    int c = y * W + x;
    out[c] = __ldg(&in[c - 1]) + __ldg(&in[c + 1]) + __ldg(&in[c - W]) + __ldg(&in[c + W]) - 4.0f * __ldg(&in[c]);
  }
}
