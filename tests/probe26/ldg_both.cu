// launch: grid cdiv(N, 32), cdiv(M, 32) block 32, 32
// sizes: M=500 N=300 K=200
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
__global__ void gemm_ldg(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C) {
  const unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float c = 0.f;
    for (unsigned k = 0; k < K; ++k) c = fmaf(__ldg(&A[row * K + k]), __ldg(&B[k * N + col]), c);
    C[row * N + col] = c;
  }
}
