// style: finite-difference textbook chapter "3-D Laplacian"; 3-D thread blocks with x/y/z from threadIdx.x/y/z, a __device__ inline at(x, y, z, nx, ny) helper returning size_t, negated interior guard with early return, result scaled by a float scale parameter, no host code
// launch: grid cdiv(nx, 16), cdiv(ny, 4), cdiv(nz, 4) block 16, 4, 4
// sizes: nx=37 ny=29 nz=21 scale=0.5
// expect: stencil-march|stencil-tile
#include <cuda_runtime.h>

__device__ inline size_t at(int x, int y, int z, int nx, int ny)
{
    return (static_cast<size_t>(z) * ny + y) * nx + x;
}

__global__ void laplace7(const float *f, float *lf, int nx, int ny, int nz, float scale)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;

    if (!(x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1 && z >= 1 && z < nz - 1))
        return;

    float s = f[at(x - 1, y, z, nx, ny)] + f[at(x + 1, y, z, nx, ny)]
            + f[at(x, y - 1, z, nx, ny)] + f[at(x, y + 1, z, nx, ny)]
            + f[at(x, y, z - 1, nx, ny)] + f[at(x, y, z + 1, nx, ny)]
            - 6.0f * f[at(x, y, z, nx, ny)];
    lf[at(x, y, z, nx, ny)] = scale * s;
}
