// launch: {"grid": ["cdiv(W, 8)", "cdiv(H, 8)", "cdiv(D, 8)"], "block": [8, 8, 8]}
// 7-point stencil, one thread per grid point with 3-D thread indices; the boundary is not written.
__global__ void stencil3d(float* out, const float* inp, int D, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1 && z > 0 && z < D - 1) {
    int i = (z * H + y) * W + x;
    out[i] = 0.4f * inp[i] + 0.1f * (inp[i - 1] + inp[i + 1] + inp[i - W] + inp[i + W] + inp[i - H * W] + inp[i + H * W]);
  }
}
