// launch: grid cdiv(nx, 32), cdiv(ny, 8) block 32, 8
// sizes: nx=500 ny=400 ld=512 h2inv=1
// expect: stencil-tile
// 5-point Laplacian on doubles with a leading dimension
__global__ void lap(const double* __restrict__ u, double* __restrict__ f, int nx, int ny, int ld, double h2inv) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1)
    f[j * ld + i] = (4.0 * u[j * ld + i] - u[j * ld + i - 1] - u[j * ld + i + 1] - u[(j - 1) * ld + i] -
                     u[(j + 1) * ld + i]) * h2inv;
}
