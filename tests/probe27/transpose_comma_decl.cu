// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=300 cols=500
// expect: transpose-tile
__global__ void transpose_naive(float* out, const float* in, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}
