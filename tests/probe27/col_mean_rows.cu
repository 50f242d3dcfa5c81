// launch: grid cdiv(cols, 128) block 128
// sizes: rows=5000 cols=1000
// expect: column
// the mean of every column, a thread per column walking the rows
__global__ void col_mean(const float* data, float* mean, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  double acc = 0.0;
  for (int r = 0; r < rows; r++) acc += data[(size_t)r * cols + c];
  mean[c] = (float)(acc / rows);
}
