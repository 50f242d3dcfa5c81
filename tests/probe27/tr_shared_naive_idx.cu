// launch: grid cdiv(cols, 32), cdiv(rows, 32) block 32, 32
// sizes: rows=700 cols=1000
// expect: transpose-tile
// a transpose with explicit row/col names and the output index computed first
__global__ void transpose_rc(const float* in, float* out, int rows, int cols) {
  unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    unsigned int dst = c * rows + r;
    unsigned int src = r * cols + c;
    out[dst] = in[src];
  }
}
