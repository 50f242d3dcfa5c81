// launch: grid cdiv(ncols, 128) block 128
// sizes: nrows=700 ncols=900
// expect: column
// column means, a thread per column
__global__ void col_means(const float* X, float* means, int nrows, int ncols) {
  int j = threadIdx.x + blockIdx.x * blockDim.x;
  if (j < ncols) {
    float acc = 0.f;
    for (int i = 0; i < nrows; i++) acc += X[(size_t)i * ncols + j];
    means[j] = acc / nrows;
  }
}
