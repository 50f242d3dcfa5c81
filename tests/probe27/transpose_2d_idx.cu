// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=1000 cols=700
// expect: transpose-tile
// a transpose with the output index computed into a local first
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) {
    unsigned int in_idx = y * cols + x;
    unsigned int out_idx = x * rows + y;
    out[out_idx] = in[in_idx];
  }
}
