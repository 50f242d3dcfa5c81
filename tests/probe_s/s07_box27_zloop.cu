// style: seismic/CFD code "27-point smoothing" with a 2-D thread grid over (x, y) and a z loop inside each thread; plane stride as size_t, triple nested dz/dy/dx loops from -1 to 1, interior only, x/y guard with early return before the loop, average times 1/27, no host code
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=45 ny=39 nz=23
// expect: stencil-march|stencil-tile
#include <cuda_runtime.h>

__global__ void box27_smooth(const float *in, float *out, int nx, int ny, int nz)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1)
        return;

    const size_t plane = (size_t)nx * ny;
    for (int z = 1; z < nz - 1; ++z) {
        float s = 0.0f;
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    s += in[(z + dz) * plane + (size_t)(y + dy) * nx + (x + dx)];
        out[z * plane + (size_t)y * nx + x] = s * (1.0f / 27.0f);
    }
}
