// launch: grid cdiv(ny, 32), cdiv(nx, 8) block 32, 8
// sizes: nx=600 ny=800 t=0
// kernel: fdtd_step3_kernel
// expect: stencil-tile
// FDTD-2D magnetic-field update hz -= 0.7*(dEx + dEy) from the staggered ex (nx x ny+1) and ey (nx+1 x ny) grids (PolyBench-ACC CUDA fdtd2d.cu)
#include <cuda.h>

typedef float DATA_TYPE;

#define _PB_NX nx
#define _PB_NY ny

__global__ void fdtd_step1_kernel(int nx, int ny, DATA_TYPE* _fict_, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NX) && (j < _PB_NY))
	{
		if (i == 0)
		{
			ey[i * ny + j] = _fict_[t];
		}
		else
		{
			ey[i * ny + j] = ey[i * ny + j] - 0.5f*(hz[i * ny + j] - hz[(i-1) * ny + j]);
		}
	}
}

__global__ void fdtd_step2_kernel(int nx, int ny, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NX) && (j < _PB_NY) && (j > 0))
	{
		ex[i * (ny+1) + j] = ex[i * (ny+1) + j] - 0.5f*(hz[i * ny + j] - hz[i * ny + (j-1)]);
	}
}

__global__ void fdtd_step3_kernel(int nx, int ny, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < (_PB_NX-1)) && (j < (_PB_NY-1)))
	{
		hz[i * ny + j] = hz[i * ny + j] - 0.7f*(ex[i * (ny+1) + (j+1)] - ex[i * (ny+1) + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
	}
}
