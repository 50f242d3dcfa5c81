// launch: grid cdiv(rows, 128) block 128
// sizes: rows=1000 cols=513
// expect: row-warp|row-block
// one thread per row sums its row (uncoalesced: each lane walks its own row)
__global__ void row_sums(const float* m, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = m + (size_t)r * cols;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += row[c];
  out[r] = s;
}
