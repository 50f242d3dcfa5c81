// launch: grid cdiv(W, 16), cdiv(H, 16) block 16, 16
// sizes: W=300 H=200
// expect: stencil-tile
// 3x3 Gaussian blur, weights in a local array, borders clamped out by the guard
__global__ void gauss3(const float* in, float* out, int W, int H) {
  const float w[3][3] = {{1.f / 16, 2.f / 16, 1.f / 16}, {2.f / 16, 4.f / 16, 2.f / 16}, {1.f / 16, 2.f / 16, 1.f / 16}};
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= W - 1 || y >= H - 1) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) s += w[dy + 1][dx + 1] * in[(y + dy) * W + (x + dx)];
  out[y * W + x] = s;
}
