// launch: grid cdiv(nx, 32), cdiv(ny, 4), nz block 32, 4, 1
// sizes: nx=200 ny=150 nz=100
// expect: stencil-tile|stencil-march
#define IDX(i, j, k) ((k) * ny * nx + (j) * nx + (i))
__global__ void lap3d(const double* u, double* v, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1)
    v[IDX(i, j, k)] = u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] + u[IDX(i, j - 1, k)] + u[IDX(i, j + 1, k)] +
                      u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)] - 6.0 * u[IDX(i, j, k)];
}
