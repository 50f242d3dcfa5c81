// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// the thread's position named tx/ty/bx/by first, then combined (the CUDA programming guide's naming)
__global__ void MatMulKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int bx = blockIdx.x, by = blockIdx.y;
  int Row = by * blockDim.y + ty;
  int Col = bx * blockDim.x + tx;
  if (Row < M && Col < N) {
    float Cvalue = 0;
    for (int e = 0; e < K; ++e) Cvalue += A[Row * K + e] * B[e * N + Col];
    C[Row * N + Col] = Cvalue;
  }
}
