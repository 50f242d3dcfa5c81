// launch: grid cdiv(n, 256) block 256
// sizes: n=100000
// kernel: runJacobiCUDA_kernel1
// expect: stencil-tile
// Jacobi 1-D 3-point average B[i] = 0.33333*(A[i-1]+A[i]+A[i+1]) (PolyBench-ACC CUDA jacobi1D.cu, including its i > 1 guard)
#include <cuda.h>

#define DIM_THREAD_BLOCK_X 256

typedef float DATA_TYPE;

#define _PB_N n

__global__ void runJacobiCUDA_kernel1(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i > 1) && (i < (_PB_N-1)))
	{
		B[i] = 0.33333f * (A[i-1] + A[i] + A[i + 1]);
	}
}

__global__ void runJacobiCUDA_kernel2(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((j > 1) && (j < (_PB_N-1)))
	{
		A[j] = B[j];
	}
}

void runJacobi1DCUDA(int tsteps, int n, DATA_TYPE* A_gpu, DATA_TYPE* B_gpu)
{
	dim3 block(DIM_THREAD_BLOCK_X, 1);
	dim3 grid((unsigned int)ceil(((float)n) / ((float)block.x)), 1);

	for (int t = 0; t < tsteps; t++)
	{
		runJacobiCUDA_kernel1 <<< grid, block >>> (n, A_gpu, B_gpu);
		cudaDeviceSynchronize();
		runJacobiCUDA_kernel2 <<< grid, block>>> (n, A_gpu, B_gpu);
		cudaDeviceSynchronize();
	}
}
