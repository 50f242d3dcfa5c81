// launch: {"grid": ["cdiv(W, 16)", "cdiv(H, 16)"], "block": [16, 16]}
// 3x3 convolution (one channel, zero padding), one thread per output point.
__global__ void conv3x3(float* out, const float* inp, int H, int W) {
  const float w[3][3] = {{0.0625f, 0.125f, -0.0625f},
                         {0.25f, 0.5f, 0.125f},
                         {-0.125f, 0.25f, 0.0625f}};
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H) {
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
      for (int dx = -1; dx <= 1; dx++) {
        int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W) {
          sum += w[dy + 1][dx + 1] * inp[yy * W + xx];
        }
      }
    }
    out[y * W + x] = sum;
  }
}
