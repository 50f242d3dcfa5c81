// launch: grid cdiv(nx, 32), cdiv(ny, 4), nz block 32, 4
// sizes: nx=130 ny=70 nz=40
// expect: stencil-tile|stencil-march
__device__ inline size_t at3(int i, int j, int k, int nx, int ny) { return ((size_t)k * ny + j) * nx + i; }
__global__ void lap7(const double* a, double* b, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
  b[at3(i, j, k, nx, ny)] = -6.0 * a[at3(i, j, k, nx, ny)] + a[at3(i - 1, j, k, nx, ny)] + a[at3(i + 1, j, k, nx, ny)]
      + a[at3(i, j - 1, k, nx, ny)] + a[at3(i, j + 1, k, nx, ny)] + a[at3(i, j, k - 1, nx, ny)] + a[at3(i, j, k + 1, nx, ny)];
}
