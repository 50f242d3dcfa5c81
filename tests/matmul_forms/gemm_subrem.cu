// launch: grid cdiv(M * N, 128) block 128
// sizes: M N K
// reference: C = A @ B, the column as the flat index minus the row's start
// recognise: `j = t - i * N` read as t % N
__global__ void mm_subrem(float* C, const float* A, const float* B, int M, int N, int K) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int i = t / N;
  int j = t - i * N;
  if (i < M) {
    float sum = 0;
    for (int p = 0; p < K; p++) sum += A[i * K + p] * B[p * N + j];
    C[i * N + j] = sum;
  }
}
