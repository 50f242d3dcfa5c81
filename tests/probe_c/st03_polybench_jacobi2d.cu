// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=1000
// kernel: runJacobiCUDA_kernel1
// expect: stencil-tile
// Jacobi 2-D 5-point sweep B = 0.2*(A + 4 neighbours) with i >= 1 && i < n-1 guards (PolyBench-ACC CUDA jacobi2d.cu)
#include <cuda.h>

typedef float DATA_TYPE;

#define _PB_N n

__global__ void runJacobiCUDA_kernel1(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i >= 1) && (i < (_PB_N-1)) && (j >= 1) && (j < (_PB_N-1)))
	{
		B[i*n + j] = 0.2f * (A[i*n + j] + A[i*n + (j-1)] + A[i*n + (1 + j)] + A[(1 + i)*n + j] + A[(i-1)*n + j]);
	}
}

__global__ void runJacobiCUDA_kernel2(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i >= 1) && (i < (_PB_N-1)) && (j >= 1) && (j < (_PB_N-1)))
	{
		A[i*n + j] = B[i*n + j];
	}
}
