// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=1030 ny=700 r=0.2
// expect: stencil-tile
// a course's explicit heat equation step: size_t indices, the update written as u + r * laplacian
__global__ void heat_step(const float* __restrict__ u, float* __restrict__ unew, size_t nx, size_t ny, float r)
{
    size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t y = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    if (x == 0 || y == 0 || x >= nx - 1 || y >= ny - 1)
        return;
    size_t c = y * nx + x;
    unew[c] = u[c] + r * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0f * u[c]);
}
