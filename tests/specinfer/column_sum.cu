// A thread per column summing down the rows: a column reduction, the matrix read with a stride of cols.
// expect: out [cols] out; in [rows, cols] in
__global__ void column_sum(float* out, const float* in, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += in[(size_t)r * cols + c];
  out[c] = s;
}
