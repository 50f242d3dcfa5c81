// launch: grid cdiv(ny, 256) block 256
// sizes: nx=3000 ny=400
// kernel: atax_kernel2
// expect: column
// y = A^T * tmp with a thread per column of A (PolyBench-ACC CUDA atax.cu atax_kernel2, with its host driver)
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

#define DIM_THREAD_BLOCK_X 256
#define DIM_THREAD_BLOCK_Y 1

#ifndef M_PI
#define M_PI 3.14159
#endif

typedef float DATA_TYPE;

#define _PB_NX nx
#define _PB_NY ny

__global__ void atax_kernel1(int nx, int ny, DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *tmp)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < _PB_NX)
	{
		tmp[i] = 0;
		int j;
		for(j=0; j < _PB_NY; j++)
		{
			tmp[i] += A[i*ny+j] * x[j];
		}
	}
}

__global__ void atax_kernel2(int nx, int ny, DATA_TYPE *A, DATA_TYPE *y, DATA_TYPE *tmp)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < _PB_NY)
	{
		y[j] = 0;
		int i;
		for(i=0; i < _PB_NX; i++)
		{
			y[j] += A[i*ny+j] * tmp[i];
		}
	}
}

void init_array(int nx, int ny, DATA_TYPE *x, DATA_TYPE *A)
{
	int i, j;
	for (i = 0; i < nx; i++)
	{
		for (j = 0; j < ny; j++)
		{
			A[i*ny + j] = ((DATA_TYPE) i*(j+1)) / nx;
		}
	}
	for (j = 0; j < ny; j++)
	{
		x[j] = j * M_PI;
	}
}

void ataxGpu(int nx, int ny, DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *y, DATA_TYPE *tmp, DATA_TYPE *y_outputFromGpu)
{
	DATA_TYPE *A_gpu;
	DATA_TYPE *x_gpu;
	DATA_TYPE *y_gpu;
	DATA_TYPE *tmp_gpu;

	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * nx * ny);
	cudaMalloc((void **)&x_gpu, sizeof(DATA_TYPE) * ny);
	cudaMalloc((void **)&y_gpu, sizeof(DATA_TYPE) * ny);
	cudaMalloc((void **)&tmp_gpu, sizeof(DATA_TYPE) * nx);

	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * nx * ny, cudaMemcpyHostToDevice);
	cudaMemcpy(x_gpu, x, sizeof(DATA_TYPE) * ny, cudaMemcpyHostToDevice);
	cudaMemcpy(y_gpu, y, sizeof(DATA_TYPE) * ny, cudaMemcpyHostToDevice);
	cudaMemcpy(tmp_gpu, tmp, sizeof(DATA_TYPE) * nx, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid1((size_t)(ceil( ((float)nx) / ((float)block.x) )), 1);
	dim3 grid2((size_t)(ceil( ((float)ny) / ((float)block.x) )), 1);

	atax_kernel1<<< grid1, block >>>(nx, ny, A_gpu, x_gpu, tmp_gpu);
	cudaDeviceSynchronize();
	atax_kernel2<<< grid2, block >>>(nx, ny, A_gpu, y_gpu, tmp_gpu);
	cudaDeviceSynchronize();

	cudaMemcpy(y_outputFromGpu, y_gpu, sizeof(DATA_TYPE) * ny, cudaMemcpyDeviceToHost);

	cudaFree(A_gpu);
	cudaFree(x_gpu);
	cudaFree(y_gpu);
	cudaFree(tmp_gpu);
}

int main(int argc, char** argv)
{
	int nx = 3000;
	int ny = 400;

	DATA_TYPE *A = (DATA_TYPE*)malloc(nx * ny * sizeof(DATA_TYPE));
	DATA_TYPE *x = (DATA_TYPE*)malloc(ny * sizeof(DATA_TYPE));
	DATA_TYPE *y = (DATA_TYPE*)calloc(ny, sizeof(DATA_TYPE));
	DATA_TYPE *tmp = (DATA_TYPE*)calloc(nx, sizeof(DATA_TYPE));
	DATA_TYPE *y_outputFromGpu = (DATA_TYPE*)malloc(ny * sizeof(DATA_TYPE));

	init_array(nx, ny, x, A);
	ataxGpu(nx, ny, A, x, y, tmp, y_outputFromGpu);
	printf("y[0] = %f\n", y_outputFromGpu[0]);

	free(A);
	free(x);
	free(y);
	free(tmp);
	free(y_outputFromGpu);
	return 0;
}
