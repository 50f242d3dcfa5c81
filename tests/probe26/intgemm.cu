// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=1000 N=900 K=700
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void igemm(const int* A, const int* B, int* C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) {
    int acc = 0;
    for (int k = 0; k < K; ++k) acc += A[r * K + k] * B[k * N + c];
    C[r * N + c] = acc;
  }
}
