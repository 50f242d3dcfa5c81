// Bias gradient, one thread per column, written with a while loop and an unsigned index.
__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= (unsigned)OC) return;
  float acc = 0.f;
  size_t r = 0;
  while (r < (size_t)N) {
    acc += dout[r * OC + c];
    r++;
  }
  dbias[c] = acc;
}
