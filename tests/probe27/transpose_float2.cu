// launch: grid cdiv(cols, 32), cdiv(rows, 8) block 32, 8
// sizes: rows=300 cols=500
// expect: transpose-tile
// complex (float2) matrix transpose, naive
__global__ void ctranspose(float2* out, const float2* in, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
