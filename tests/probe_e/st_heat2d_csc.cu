// style: CSC/PRACE summer-school heat equation evolve kernel (ind = i*(ny+2)+j on a ghost-padded field, a*dt/dx2)
// launch: grid cdiv(ny + 2, 16), cdiv(nx + 2, 16) block 16, 16
// sizes: nx=211 ny=187 a=0.5 dt=0.01 dx2=0.0001 dy2=0.0001
// expect: stencil-tile
#include <cuda_runtime.h>

__global__ void evolve_kernel(double *currdata, double *prevdata, double a, double dt,
                              int nx, int ny, double dx2, double dy2)
{
    /* Determine the temperature field at next time step
     * As we have fixed boundary conditions, the outermost gridpoints
     * are not updated. */
    int ind, ip, im, jp, jm;

    // CUDA threads are arranged in column major order; thus j index from x, i from y
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i > 0 && j > 0 && i < nx + 1 && j < ny + 1) {
        ind = i * (ny + 2) + j;
        ip = (i + 1) * (ny + 2) + j;
        im = (i - 1) * (ny + 2) + j;
        jp = i * (ny + 2) + j + 1;
        jm = i * (ny + 2) + j - 1;
        currdata[ind] = prevdata[ind] + a * dt *
              ((prevdata[ip] - 2.0 * prevdata[ind] + prevdata[im]) / dx2 +
               (prevdata[jp] - 2.0 * prevdata[ind] + prevdata[jm]) / dy2);
    }
}
