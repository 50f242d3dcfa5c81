// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles
// int8 operands, int32 sums
__global__ void igemm(const signed char* A, const signed char* B, int* C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) {
    int acc = 0;
    for (int k = 0; k < K; ++k) acc += (int)A[r * K + k] * (int)B[k * N + c];
    C[r * N + c] = acc;
  }
}
