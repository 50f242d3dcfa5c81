// launch: grid cdiv(W, 16), cdiv(H, 16) block 16, 16
// sizes: H=500 W=600
// expect: stencil-tile
// 3x3 box blur over the interior, loops over the neighbourhood
__global__ void box(const float* in, float* out, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= W - 1 || y >= H - 1) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) s += in[(y + dy) * W + (x + dx)];
  out[y * W + x] = s / 9.f;
}
