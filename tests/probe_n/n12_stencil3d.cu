// style: Parboil stencil -- Index3D macro, c0/c1 coefficients, 2-D grid over x/y and the z plane walked by a while loop inside each thread
// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: c0=0.5 c1=0.0833 nx=37 ny=29 nz=23
// expect: stencil-tile|stencil-window|stencil-march
#include <cuda_runtime.h>

#define Index3D(_nx, _ny, _i, _j, _k) ((_i) + (_nx) * ((_j) + (_ny) * (_k)))

__global__ void naive_kernel(float c0, float c1, const float *A0, float *Anext,
                             int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1)
        return;

    int k = 1;
    while (k < nz - 1) {
        Anext[Index3D(nx, ny, i, j, k)] =
            (A0[Index3D(nx, ny, i, j, k + 1)] +
             A0[Index3D(nx, ny, i, j, k - 1)] +
             A0[Index3D(nx, ny, i, j + 1, k)] +
             A0[Index3D(nx, ny, i, j - 1, k)] +
             A0[Index3D(nx, ny, i + 1, j, k)] +
             A0[Index3D(nx, ny, i - 1, j, k)]) * c1
            - A0[Index3D(nx, ny, i, j, k)] * c0;
        ++k;
    }
}
