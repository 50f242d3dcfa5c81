// style: PolyBench-ACC jacobi2D.cu kernel1: 5-point average with literal 0.2f weight into B from A, interior points only, host loop ping-pongs
// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=997
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define TSTEPS 20
#define N 997

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void runJacobiCUDA_kernel1(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i >= 1) && (i < (n-1)) && (j >= 1) && (j < (n-1)))
	{
		B[i*n + j] = 0.2f * (A[i*n + j] + A[i*n + (j-1)] + A[i*n + (1 + j)] + A[(1 + i)*n + j] + A[(i-1)*n + j]);
	}
}

void init_array(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int i, j;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
		{
			A[i*n + j] = ((DATA_TYPE) i*(j+2) + 10) / n;
			B[i*n + j] = ((DATA_TYPE) (i-4)*(j-1) + 11) / n;
		}
}

int main(int argc, char** argv)
{
	int n = N;
	DATA_TYPE* A = (DATA_TYPE*)malloc(n*n*sizeof(DATA_TYPE));
	DATA_TYPE* B = (DATA_TYPE*)malloc(n*n*sizeof(DATA_TYPE));
	init_array(n, A, B);

	DATA_TYPE *Agpu, *Bgpu;
	cudaMalloc(&Agpu, n*n*sizeof(DATA_TYPE));
	cudaMalloc(&Bgpu, n*n*sizeof(DATA_TYPE));
	cudaMemcpy(Agpu, A, n*n*sizeof(DATA_TYPE), cudaMemcpyHostToDevice);
	cudaMemcpy(Bgpu, B, n*n*sizeof(DATA_TYPE), cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((unsigned int)((n + block.x - 1) / block.x), (unsigned int)((n + block.y - 1) / block.y));

	for (int t = 0; t < TSTEPS; t++)
	{
		runJacobiCUDA_kernel1<<<grid, block>>>(n, Agpu, Bgpu);
		cudaDeviceSynchronize();
		DATA_TYPE* swap = Agpu; Agpu = Bgpu; Bgpu = swap;
	}

	cudaMemcpy(A, Agpu, n*n*sizeof(DATA_TYPE), cudaMemcpyDeviceToHost);
	printf("A[n+1] = %f\n", A[n + 1]);
	cudaFree(Agpu); cudaFree(Bgpu);
	free(A); free(B);
	return 0;
}
