// launch: {"grid": ["cdiv(W, 16)", "cdiv(H, 16)"], "block": [16, 16]}
// 5-point stencil, one thread per grid point with 2-D thread indices; the boundary is not written.
__global__ void stencil2d(float* out, const float* inp, int H, int W) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < H - 1 && j > 0 && j < W - 1) {
    out[i * W + j] = 0.6f * inp[i * W + j] +
                     0.1f * (inp[(i - 1) * W + j] + inp[(i + 1) * W + j] + inp[i * W + j - 1] + inp[i * W + j + 1]);
  }
}
