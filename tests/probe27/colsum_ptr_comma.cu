// launch: grid cdiv(cols, 256) block 256
// sizes: rows=4000 cols=3000
// expect: column
// sum of each column, a thread per column, the row loop with a pointer walking down
__global__ void col_sum(const float* m, float* s, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const float* p = m + c;
  float acc = 0.f;
  for (int r = 0; r < rows; ++r, p += cols) acc += *p;
  s[c] = acc;
}
