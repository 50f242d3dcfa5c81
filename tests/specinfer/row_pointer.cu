// Row pointers: each thread walks one row through `x + r * cols`, writing through another row pointer.
// expect: y [rows, cols] out; x [rows, cols] in; scale [cols] in
__global__ void scale_rows(float* y, const float* x, const float* scale, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + (size_t)r * cols;
  float* yr = y + (size_t)r * cols;
  for (int c = 0; c < cols; ++c) yr[c] = xr[c] * scale[c];
}
