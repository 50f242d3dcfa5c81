// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=300 n=200 k=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#define IDX2C(i, j, ld) (((j) * (ld)) + (i))
__global__ void gemm_cm(int m, int n, int k, const float* A, const float* B, float* C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) {
    float s = 0.0f;
    for (int l = 0; l < k; ++l) s += A[IDX2C(i, l, m)] * B[IDX2C(l, j, k)];
    C[IDX2C(i, j, m)] = s;
  }
}
