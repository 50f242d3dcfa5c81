// Row softmax, one thread per row, three passes over the row.
__global__ void softmax_forward(float* out, const float* inp, int N, int C) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N) {
    const float* x = inp + (size_t)row * C;
    float* y = out + (size_t)row * C;
    float maxval = -INFINITY;
    for (int j = 0; j < C; j++) {
      if (x[j] > maxval) {
        maxval = x[j];
      }
    }
    float sum = 0.0f;
    for (int j = 0; j < C; j++) {
      y[j] = expf(x[j] - maxval);
      sum += y[j];
    }
    for (int j = 0; j < C; j++) {
      y[j] /= sum;
    }
  }
}
