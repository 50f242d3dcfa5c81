// launch: grid cdiv(nx, 32), cdiv(ny, 4), nz block 32, 4
// sizes: nx=130 ny=70 nz=40
// expect: stencil-tile|stencil-march
// 3-D 7-point Laplacian with an inline index helper
__device__ __forceinline__ int at(int x, int y, int z, int nx, int ny) { return (z * ny + y) * nx + x; }
__global__ void lap3d(const float* u, float* v, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  v[at(x, y, z, nx, ny)] = u[at(x - 1, y, z, nx, ny)] + u[at(x + 1, y, z, nx, ny)] + u[at(x, y - 1, z, nx, ny)]
      + u[at(x, y + 1, z, nx, ny)] + u[at(x, y, z - 1, nx, ny)] + u[at(x, y, z + 1, nx, ny)] - 6.0f * u[at(x, y, z, nx, ny)];
}
