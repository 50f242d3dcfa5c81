// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 alpha=2
// expect: elementwise|gather
// rank-1 update: not a product over k
__global__ void ger(float* A, const float* x, const float* y, float alpha, int M, int N) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) A[i * N + j] += alpha * x[i] * y[j];
}
