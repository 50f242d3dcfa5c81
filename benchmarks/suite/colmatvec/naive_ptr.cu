// y = x A, one thread per column walking a pointer down its column.
__global__ void colmatvec(float* y, const float* A, const float* x, int M, int N) {
  const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  const float* a = A + col;
  float acc = 0.f;
  unsigned i = 0;
  while (i < M) {
    acc += *a * x[i];
    a += N;
    ++i;
  }
  y[col] = acc;
}
