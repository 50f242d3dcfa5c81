// Jacobi 2-D sweep on an N x N grid; interior points only, one size variable.
// expect: A [N, N] in; B [N, N] out
__global__ void jacobi_2d(const double* A, double* B, int N) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < N - 1 && j > 0 && j < N - 1) {
    B[i * N + j] = 0.2 * (A[i * N + j] + A[i * N + j - 1] + A[i * N + j + 1] + A[(i + 1) * N + j] + A[(i - 1) * N + j]);
  }
}
