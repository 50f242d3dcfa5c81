// launch: grid cdiv(nx, 32), cdiv(ny, 4), cdiv(nz, 2) block 32, 4, 2
// sizes: nx=100 ny=60 nz=30
// expect: stencil-tile|stencil-march
// 27-point box average
__global__ void box27(const float* in, float* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  float s = 0.f;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) s += in[((z + dz) * ny + (y + dy)) * nx + (x + dx)];
  out[(z * ny + y) * nx + x] = s * (1.0f / 27.0f);
}
