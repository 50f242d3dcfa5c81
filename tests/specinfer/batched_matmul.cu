// Batched matrix product over blockIdx.z, each batch's matrices reached through pointer offsets.
// expect: C [batch, M, N] out; A [batch, M, K] in; B [batch, K, N] in; grid [cdiv(N, 16), cdiv(M, 16), batch]
__global__ void bmm(float* C, const float* A, const float* B, int batch, int M, int N, int K) {
  int b = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch || row >= M || col >= N) return;
  const float* a = A + (size_t)b * M * K;
  const float* bb = B + (size_t)b * K * N;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[row * K + k] * bb[k * N + col];
  C[(size_t)b * M * N + row * N + col] = acc;
}
