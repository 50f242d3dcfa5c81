// style: 3-D heat diffusion step, 2-D grid over (x, y) with each thread walking z, IDX macro, host launcher
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=97 ny=83 nz=61 r=0.1
// expect: stencil-tile|stencil-march
#include <cuda_runtime.h>

#define IDX(i, j, k) ((k) * nx * ny + (j) * nx + (i))

__global__ void heat3d_step(const float *u, float *unew, int nx, int ny, int nz, float r)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1) return;

    for (int k = 1; k < nz - 1; k++) {
        float c = u[IDX(i, j, k)];
        unew[IDX(i, j, k)] = c + r * (u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)]
                                    + u[IDX(i, j - 1, k)] + u[IDX(i, j + 1, k)]
                                    + u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)] - 6.0f * c);
    }
}
