// launch: grid cdiv(W, 16), cdiv(H, 16) block 16, 16
// sizes: W=1000 H=700
// expect: stencil-tile
// a 3x3 box filter with two loops over the window and a bounds test per tap (image processing tutorials)
__global__ void box3(const float* img, float* out, int W, int H) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= W || row >= H) return;
  float sum = 0.0f;
  int count = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      int r = row + dy, c = col + dx;
      if (r >= 0 && r < H && c >= 0 && c < W) {
        sum += img[r * W + c];
        count++;
      }
    }
  }
  out[row * W + col] = sum / count;
}
