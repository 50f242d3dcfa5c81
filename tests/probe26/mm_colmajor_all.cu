// launch: grid cdiv(M, 16), cdiv(N, 16) block 16, 16
// sizes: M=300 N=200 K=150
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// Fortran order everywhere: C(i,j) = sum A(i,k) B(k,j), i on x
#define IDX2C(i, j, ld) (((j) * (ld)) + (i))
__global__ void sgemm_cm(const float* A, const float* B, float* C, int M, int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[IDX2C(i, k, M)] * B[IDX2C(k, j, K)];
    C[IDX2C(i, j, M)] = s;
  }
}
