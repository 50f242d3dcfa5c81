// Two outputs per thread in two named sums, rows 16 apart (a block of 16 x 16 threads takes 32 rows), each
// updated under its own guard and stored once under the same guard.
// recognise: one output per thread (matmul.one_output), for the tiles and tensor cores only
__global__ void mm_two_rows(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * 16 + threadIdx.x;
  int row = blockIdx.y * 32 + threadIdx.y;
  if (col >= N) return;
  float s0 = 0.f, s1 = 0.f;
  for (int k = 0; k < K; ++k) {
    float b = B[k * N + col];
    if (row < M) s0 += A[row * K + k] * b;
    if (row + 16 < M) s1 += A[(row + 16) * K + k] * b;
  }
  if (row < M) C[row * N + col] = s0;
  if (row + 16 < M) C[(row + 16) * N + col] = s1;
}
