// style: HPC course homework "3-D Jacobi / heat equation" step; 3-D thread blocks with i/j/k from x/y/z, IDX(i,j,k) macro over nx*ny planes, interior-only update with the 1/6 neighbour average, separate u/unew arrays
// launch: grid cdiv(nx, 8), cdiv(ny, 8), cdiv(nz, 4) block 8, 8, 4
// sizes: nx=67 ny=45 nz=29
// expect: stencil-march|stencil-tile
#include <cuda_runtime.h>

#define IDX(i, j, k) ((size_t)(k) * nx * ny + (size_t)(j) * nx + (i))

__global__ void jacobi3d(const double *u, double *unew, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1) {
        unew[IDX(i, j, k)] = (u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] +
                              u[IDX(i, j - 1, k)] + u[IDX(i, j + 1, k)] +
                              u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)]) / 6.0;
    }
}
