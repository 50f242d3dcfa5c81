// launch: grid cdiv(cols, 256) block 256
// sizes: rows=4000 cols=1000
// expect: column
// integer column sums (a count per column), a thread per column
__global__ void col_count(const int* m, int* counts, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    int t = 0;
    for (int r = 0; r < rows; ++r) t += m[r * cols + c] > 0;
    counts[c] = t;
  }
}
