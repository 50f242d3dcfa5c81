// 3-D indexing with blockIdx.z: (z * ny + y) * nx + x, interior points of a 7-point stencil.
// expect: u [nz, ny, nx] in; unew [nz, ny, nx] out
__global__ void heat_3d(const float* __restrict__ u, float* __restrict__ unew, int nx, int ny, int nz, float c) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t idx = ((size_t)z * ny + y) * nx + x;
  size_t sy = nx, sz = (size_t)nx * ny;
  unew[idx] = u[idx] + c * (u[idx - 1] + u[idx + 1] + u[idx - sy] + u[idx + sy] + u[idx - sz] + u[idx + sz] - 6.0f * u[idx]);
}
