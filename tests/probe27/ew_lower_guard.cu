// launch: grid cdiv(n, 256) block 256
// sizes: n=100001 a=0.5
// expect: elementwise
__global__ void axpy_skip0(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n) y[i] += a * x[i];
}
