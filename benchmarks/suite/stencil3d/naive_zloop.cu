// 7-point stencil, a thread per (x, y) column looping over the planes.
__global__ void stencil3d(float* out, const float* inp, int D, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= W - 1 || y < 1 || y >= H - 1) return;
  int stride = W * H;
  for (int z = 1; z < D - 1; z++) {
    int i = z * stride + y * W + x;
    out[i] = 0.4f * inp[i] + 0.1f * (inp[i - stride] + inp[i + stride] + inp[i - W] + inp[i + W] + inp[i - 1] + inp[i + 1]);
  }
}
