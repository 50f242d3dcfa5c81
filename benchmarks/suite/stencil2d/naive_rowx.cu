// 5-point stencil, 2-D thread indices with the row on x (as in a [row][col] loop nest read as x, y).
__global__ void stencil2d(float* out, const float* inp, int H, int W) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= 1 && row <= H - 2 && col >= 1 && col <= W - 2) {
    float sum = inp[(row - 1) * W + col];
    sum += inp[(row + 1) * W + col];
    sum += inp[row * W + (col - 1)];
    sum += inp[row * W + (col + 1)];
    out[row * W + col] = 0.6f * inp[row * W + col] + 0.1f * sum;
  }
}
