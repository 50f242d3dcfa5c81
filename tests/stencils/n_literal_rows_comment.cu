// A second reading's reproducer: the block's height written as a literal (BY), blockDim.y only in a comment:
// the tile's shape must stay the launch's (a taller virtual block would move the rows).
#define BY 8
// launched with blockDim.y == BY rows per block
__global__ void st1(float* out, const float* inp, int H, int W) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * BY + threadIdx.y;  // blockDim.y is BY
  if (i > 0 && i < H - 1 && j > 0 && j < W - 1) {
    out[i * W + j] = 0.6f * inp[i * W + j] +
                     0.1f * (inp[(i - 1) * W + j] + inp[(i + 1) * W + j] + inp[i * W + j - 1] + inp[i * W + j + 1]);
  }
}
