// launch: grid cdiv(W, 16), cdiv(H, 16) block 16, 16
// sizes: W=500 H=300
// expect: stencil-tile
// a 3x3 convolution with the mask passed as a pointer (PMPP's first version), zero padding
#define MASK 3
__global__ void conv2d_basic(const float* in, const float* mask, float* out, int W, int H) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < H && col < W) {
    float v = 0.0f;
    int r0 = row - MASK / 2, c0 = col - MASK / 2;
    for (int j = 0; j < MASK; ++j)
      for (int k = 0; k < MASK; ++k) {
        int r = r0 + j, c = c0 + k;
        if (r >= 0 && r < H && c >= 0 && c < W) v += in[r * W + c] * mask[j * MASK + k];
      }
    out[row * W + col] = v;
  }
}
