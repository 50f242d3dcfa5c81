// a 7-point 3-D step with 2-D blocks and the planes on blockIdx.z: x and y neighbours from the tile,
// the planes above and below read as written
__global__ void heat3d(float* out, const float* in, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
    if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
    size_t p = ((size_t)z * ny + y) * nx + x;
    size_t plane = (size_t)nx * ny;
    out[p] = in[p] + 0.1f * (in[p - 1] + in[p + 1] + in[p - nx] + in[p + nx] + in[p - plane] + in[p + plane] - 6.0f * in[p]);
}
