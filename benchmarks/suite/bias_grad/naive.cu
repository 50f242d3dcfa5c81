// Bias gradient, one thread per output column summing down the rows.
__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < OC) {
    float sum = 0.0f;
    for (int r = 0; r < N; r++) {
      sum += dout[r * OC + col];
    }
    dbias[col] = sum;
  }
}
