// style: HPC-course 3-D heat equation, 7-point stencil with one z-plane per blockIdx.z, IDX3 macro, c0/c1 coefficients as float params, boundary cells copied through unchanged
// launch: grid cdiv(nx, 16), cdiv(ny, 8), nz block 16, 8
// sizes: nx=67 ny=45 nz=37 c0=0.4 c1=0.1
// expect: stencil-march|stencil-tile
#include <cuda_runtime.h>

#define IDX3(x, y, z) ((size_t)(z) * nx * ny + (size_t)(y) * nx + (x))

__global__ void heat7pt(const float *__restrict__ u, float *__restrict__ unew,
                        int nx, int ny, int nz, float c0, float c1)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;

    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        unew[IDX3(x, y, z)] = u[IDX3(x, y, z)];
        return;
    }

    unew[IDX3(x, y, z)] = c0 * u[IDX3(x, y, z)]
                        + c1 * (u[IDX3(x - 1, y, z)] + u[IDX3(x + 1, y, z)]
                              + u[IDX3(x, y - 1, z)] + u[IDX3(x, y + 1, z)]
                              + u[IDX3(x, y, z - 1)] + u[IDX3(x, y, z + 1)]);
}
