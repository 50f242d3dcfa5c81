// launch: grid cdiv(nx, 32), cdiv(ny, 8) block 32, 8
// sizes: nx=1000 ny=700 r=0.1
// expect: stencil-tile
// 2-D heat step written through a centre pointer: p[-1], p[+1], p[-nx], p[+nx]
__global__ void heat_ptr(float* __restrict__ out, const float* __restrict__ in, int nx, int ny, float r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  const float* p = in + y * nx + x;
  out[y * nx + x] = p[0] + r * (p[-1] + p[1] + p[-nx] + p[nx] - 4.0f * p[0]);
}
