// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=1000 N=2000
// expect: row-warp|row-block|block-atomic|warp-atomic
// row sums by one atomic per element on a 2-D grid
__global__ void rowsum(const float* A, float* s, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) atomicAdd(&s[i], A[i * N + j]);
}
