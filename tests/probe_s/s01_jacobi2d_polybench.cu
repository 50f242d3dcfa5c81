// style: PolyBench/GPU jacobi2d; #define N with DATA_TYPE typedef, kernel takes 2-D array parameters DATA_TYPE A[N][N] and indexes A[i][j], i from the y dimension, guard written as ((i >= 1) && (i < (N-1)) && ...), second copy-back kernel, host loop over TSTEPS with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 32), cdiv(N, 8) block 32, 8
// sizes: N=67
// expect: stencil-tile|stencil-window
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N 67
#define TSTEPS 4
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void runJacobiCUDA_kernel1(DATA_TYPE A[N][N], DATA_TYPE B[N][N])
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i >= 1) && (i < (N-1)) && (j >= 1) && (j < (N-1)))
	{
		B[i][j] = 0.2f * (A[i][j] + A[i][(j-1)] + A[i][(1+j)] + A[(1+i)][j] + A[(i-1)][j]);
	}
}

__global__ void runJacobiCUDA_kernel2(DATA_TYPE A[N][N], DATA_TYPE B[N][N])
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i >= 1) && (i < (N-1)) && (j >= 1) && (j < (N-1)))
	{
		A[i][j] = B[i][j];
	}
}

void init_array(DATA_TYPE A[N][N], DATA_TYPE B[N][N])
{
	for (int i = 0; i < N; i++)
	{
		for (int j = 0; j < N; j++)
		{
			A[i][j] = ((DATA_TYPE) i*(j+2) + 10) / N;
			B[i][j] = ((DATA_TYPE) (i-4)*(j-1) + 11) / N;
		}
	}
}

int main(void)
{
	DATA_TYPE (*A)[N] = (DATA_TYPE (*)[N])malloc(N*N*sizeof(DATA_TYPE));
	DATA_TYPE (*B)[N] = (DATA_TYPE (*)[N])malloc(N*N*sizeof(DATA_TYPE));
	init_array(A, B);

	DATA_TYPE (*A_gpu)[N];
	DATA_TYPE (*B_gpu)[N];
	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * N * N);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * N * N);
	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * N * N, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * N * N, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((unsigned int)ceil(((float)N) / ((float)block.x)), (unsigned int)ceil(((float)N) / ((float)block.y)));

	for (int t = 0; t < TSTEPS; t++)
	{
		runJacobiCUDA_kernel1<<<grid, block>>>(A_gpu, B_gpu);
		cudaDeviceSynchronize();
		runJacobiCUDA_kernel2<<<grid, block>>>(A_gpu, B_gpu);
		cudaDeviceSynchronize();
	}

	cudaMemcpy(A, A_gpu, sizeof(DATA_TYPE) * N * N, cudaMemcpyDeviceToHost);
	printf("A[N/2][N/2] = %f\n", A[N/2][N/2]);

	cudaFree(A_gpu);
	cudaFree(B_gpu);
	free(A);
	free(B);
	return 0;
}
