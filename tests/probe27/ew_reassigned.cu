// launch: grid cdiv(n, 128) block 128
// sizes: n=100001
// expect: elementwise
__global__ void relu_re(float* x, int n) {
  int i = threadIdx.x;
  i += blockIdx.x * blockDim.x;
  if (i >= n) return;
  x[i] = x[i] > 0.f ? x[i] : 0.f;
}
