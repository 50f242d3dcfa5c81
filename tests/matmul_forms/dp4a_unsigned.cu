// A second reading's reproducer: unsigned packed bytes through __dp4a (the zero put in must be unsigned too, or
// the call is ambiguous between the int and the unsigned overloads).
__global__ void u8gemm(const unsigned* A, const unsigned* B, unsigned* C, int M, int N, int K4) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  unsigned acc = 0;
  for (int w = 0; w < K4; ++w) acc = __dp4a(A[row * K4 + w], B[col * K4 + w], acc);
  C[row * N + col] = acc;
}
