// launch: grid cdiv(N, 16), cdiv(N, 16) block 16, 16
// sizes: N=500 h2=0.01
// expect: stencil-tile
// a Jacobi sweep for Laplace's equation with the right-hand side (Numerical Recipes style names)
__global__ void jacobi_rhs(const double* __restrict__ u, double* __restrict__ unew, const double* __restrict__ f, int N, double h2) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < N - 1 && j > 0 && j < N - 1) {
    unew[i * N + j] = 0.25 * (u[(i - 1) * N + j] + u[(i + 1) * N + j] + u[i * N + j - 1] + u[i * N + j + 1] - h2 * f[i * N + j]);
  }
}
