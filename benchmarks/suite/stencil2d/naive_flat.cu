// 5-point stencil over a flat index: row and column from a quotient and a remainder.
__global__ void stencil2d(float* out, const float* inp, int H, int W) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * W) return;
  int i = idx / W;
  int j = idx % W;
  if (i == 0 || i == H - 1 || j == 0 || j == W - 1) return;
  const float c = 0.6f, n = 0.1f;
  float up = inp[idx - W], down = inp[idx + W];
  float left = inp[idx - 1], right = inp[idx + 1];
  out[idx] = c * inp[idx] + n * (up + down + left + right);
}
