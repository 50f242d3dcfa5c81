// launch: grid cdiv(n, 256) block 256
// sizes: n=1000000
// expect: elementwise
// y = x / ||x|| with the norm computed earlier into norm[0]
__global__ void normalize(const float* x, const float* norm, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / norm[0];
}
