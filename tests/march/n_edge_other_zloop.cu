// a z loop whose edge path stores another point than the interior's (out[c + 1]): not one point per plane
__global__ void edge_other(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz) {
  int ix = blockIdx.x * blockDim.x + threadIdx.x;
  int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix >= nx - 1 || iy >= ny) return;
  for (int iz = 0; iz < nz; ++iz) {
    size_t c = (size_t)iz * nx * ny + (size_t)iy * nx + ix;
    if (ix == 0 || iy == 0 || iy == ny - 1 || iz == 0 || iz == nz - 1) {
      out[c + 1] = in[c];
      continue;
    }
    out[c] = 0.4f * in[c] + 0.1f * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - (size_t)nx * ny] +
                                    in[c + (size_t)nx * ny]);
  }
}
