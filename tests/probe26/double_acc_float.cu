// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=333
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// square product summed in double, stored as float
__global__ void matmul_sq(const float* a, const float* b, float* c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += (double)a[row * n + i] * (double)b[i * n + col];
    c[row * n + col] = (float)sum;
  }
}
