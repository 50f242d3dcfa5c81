// C = alpha A B + beta C, one output per thread, the column on threadIdx.x: naive_cols.cu's kernel, whose spec
// (family.toml's naive_tf32) admits TF32's rounding, so the optimizer may put the product on TF32 tensor cores.
__global__ void sgemm(float* C, const float* A, const float* B, int M, int N, int K, float alpha, float beta) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * sum + beta * C[row * N + col];
}
