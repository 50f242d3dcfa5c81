// launch: grid cdiv(cols, 32), cdiv(rows, 8) block 32, 8
// sizes: rows=700 cols=1000
// expect: transpose-tile
__global__ void transpose_hint(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  int c = blockIdx.x * 32 + threadIdx.x;
  int r = blockIdx.y * 8 + threadIdx.y;
  if (r < rows && c < cols) __stcs(&out[(size_t)c * rows + r], __ldg(&in[(size_t)r * cols + c]));
}
