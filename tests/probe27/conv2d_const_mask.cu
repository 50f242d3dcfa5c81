// launch: grid cdiv(W, 16), cdiv(H, 16) block 16, 16
// sizes: H=500 W=600
// expect: stencil-tile
// 3x3 convolution with the mask in __constant__ memory, zero padding
#define MASK 3
__constant__ float d_mask[MASK * MASK];
__global__ void conv2d(const float* __restrict__ in, float* __restrict__ out, int H, int W) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= H || col >= W) return;
  float acc = 0.0f;
  for (int dy = 0; dy < MASK; ++dy) {
    for (int dx = 0; dx < MASK; ++dx) {
      int r = row + dy - MASK / 2, c = col + dx - MASK / 2;
      if (r >= 0 && r < H && c >= 0 && c < W) acc += in[r * W + c] * d_mask[dy * MASK + dx];
    }
  }
  out[row * W + col] = acc;
}
