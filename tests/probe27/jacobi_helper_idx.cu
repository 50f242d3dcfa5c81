// launch: grid cdiv(nx, 32), cdiv(ny, 8) block 32, 8
// sizes: nx=500 ny=300
// expect: stencil-tile
__device__ __forceinline__ int ix(int x, int y, int nx) { return y * nx + x; }
__global__ void jacobi(const float* __restrict__ u, float* __restrict__ un, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
    un[ix(x, y, nx)] = 0.25f * (u[ix(x - 1, y, nx)] + u[ix(x + 1, y, nx)] + u[ix(x, y - 1, nx)] + u[ix(x, y + 1, nx)]);
}
