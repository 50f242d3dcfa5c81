// 7-point stencil over a flat index: z, y and x from quotients and remainders.
__global__ void stencil3d(float* out, const float* inp, int D, int H, int W) {
  size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t plane = (size_t)H * W;
  if (idx >= (size_t)D * plane) return;
  int z = idx / plane;
  int y = (idx / W) % H;
  int x = idx % W;
  if (z < 1 || z > D - 2 || y < 1 || y > H - 2 || x < 1 || x > W - 2) return;
  const float center = 0.4f, face = 0.1f;
  float s = inp[idx - 1] + inp[idx + 1];
  s += inp[idx - W] + inp[idx + W];
  s += inp[idx - plane] + inp[idx + plane];
  out[idx] = center * inp[idx] + face * s;
}
