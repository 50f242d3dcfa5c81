// launch: grid cdiv(nx, 32), cdiv(ny, 8), nz block 32, 8
// sizes: nx=130 ny=70 nz=5
// expect: transpose-tile
// swap the two fastest dimensions of a 3-D array: out[z][x][y] = in[z][y][x]
__global__ void swap_xy3(const float* in, float* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < nx && y < ny) out[((size_t)z * nx + x) * ny + y] = in[((size_t)z * ny + y) * nx + x];
}
