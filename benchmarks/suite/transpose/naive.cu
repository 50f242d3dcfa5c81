// Transpose, one thread per element: reads along the input's rows, writes down the output's columns.
__global__ void transpose(float* out, const float* inp, int H, int W) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < H && col < W) {
    out[col * H + row] = inp[row * W + col];
  }
}
