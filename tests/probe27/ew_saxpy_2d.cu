// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=1000 N=1000 a=2
// expect: elementwise
// y += a * x over a 2-D grid
__global__ void saxpy2d(float* y, const float* x, float a, int M, int N) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < M && c < N) y[r * N + c] += a * x[r * N + c];
}
