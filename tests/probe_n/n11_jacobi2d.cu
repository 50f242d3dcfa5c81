// style: PolyBench/GPU jacobi2d -- two kernels (sweep + copy back), i/j named for y/x, row pointers, `j > 0 && j < ny-1` halo guards
// launch: grid cdiv(nx, 32), cdiv(ny, 8) block 32, 8
// sizes: nx=131 ny=67
// kernel: jacobi2d_sweep
// expect: stencil-tile|stencil-window|stencil-march
#include <cuda_runtime.h>

typedef float DATA_TYPE;

/* b = 0.2 * (a + 4 neighbours) on the interior of an ny x nx grid, halo width 1 */
__global__ void jacobi2d_sweep(const DATA_TYPE *a, DATA_TYPE *b, int nx, int ny)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;   /* column */
	int j = blockIdx.y * blockDim.y + threadIdx.y;   /* row    */

	if (j > 0 && j < ny - 1 && i > 0 && i < nx - 1)
	{
		const DATA_TYPE *up  = a + (j - 1) * nx;
		const DATA_TYPE *mid = a + j * nx;
		const DATA_TYPE *dn  = a + (j + 1) * nx;
		b[j * nx + i] = 0.2f * (mid[i] + mid[i - 1] + mid[i + 1] + up[i] + dn[i]);
	}
}

__global__ void jacobi2d_copy(DATA_TYPE *a, const DATA_TYPE *b, int nx, int ny)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int j = blockIdx.y * blockDim.y + threadIdx.y;

	if (j > 0 && j < ny - 1 && i > 0 && i < nx - 1)
		a[j * nx + i] = b[j * nx + i];
}
