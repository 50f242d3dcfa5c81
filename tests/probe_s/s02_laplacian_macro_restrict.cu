// style: CFD lecture notes "discrete Laplacian"; #define IDX(r, c) ((r) * nx + (c)) index macro that captures nx, const float* __restrict__ arguments, negated interior guard with early return, r/c names, borders of lap left untouched, no host code
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: nx=133 ny=75 inv_h2=1.0
// expect: stencil-tile|stencil-window
#include <cuda_runtime.h>

#define IDX(r, c) ((r) * nx + (c))

__global__ void laplacian2d(const float* __restrict__ u,
                            float* __restrict__ lap,
                            const int nx, const int ny,
                            const float inv_h2)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;

    if (!(c > 0 && c < nx - 1 && r > 0 && r < ny - 1))
        return;

    const float center = u[IDX(r, c)];
    lap[IDX(r, c)] = (u[IDX(r, c - 1)] + u[IDX(r, c + 1)]
                    + u[IDX(r - 1, c)] + u[IDX(r + 1, c)]
                    - 4.0f * center) * inv_h2;
}
