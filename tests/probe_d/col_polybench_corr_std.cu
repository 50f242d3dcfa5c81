// launch: grid cdiv(m, 256) block 256
// sizes: m=700 n=1100
// expect: column
// PolyBench/GPU correlation.cu: mean_kernel and std_kernel (per-column standard deviation over n rows), one thread per column
// kernel: std_kernel
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

#define M 700
#define N 1100

/* Thread block dimensions for kernel 1*/
#define DIM_THREAD_BLOCK_KERNEL_1_X 256
#define DIM_THREAD_BLOCK_KERNEL_1_Y 1

/* Thread block dimensions for kernel 2*/
#define DIM_THREAD_BLOCK_KERNEL_2_X 256
#define DIM_THREAD_BLOCK_KERNEL_2_Y 1

#define sqrt_of_array_cell(x,j) sqrt(x[j])

#define FLOAT_N 3214212.01f
#define EPS 0.005f

/* Can switch DATA_TYPE between float and double */
typedef float DATA_TYPE;

__global__ void mean_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < m)
	{
		mean[j] = 0.0;

		int i;
		for(i=0; i < n; i++)
		{
			mean[j] += data[i*m + j];
		}

		mean[j] /= (DATA_TYPE)FLOAT_N;
	}
}


__global__ void std_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *std, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < m)
	{
		std[j] = 0.0;

		int i;
		for(i = 0; i < n; i++)
		{
			std[j] += (data[i*m + j] - mean[j]) * (data[i*m + j] - mean[j]);
		}
		std[j] /= (FLOAT_N);
		std[j] = sqrt(std[j]);
		if(std[j] <= EPS)
		{
			std[j] = 1.0;
		}
	}
}

void correlationCuda(DATA_TYPE* data_gpu, DATA_TYPE* mean_gpu, DATA_TYPE* stddev_gpu)
{
	dim3 block1(DIM_THREAD_BLOCK_KERNEL_1_X, DIM_THREAD_BLOCK_KERNEL_1_Y);
	dim3 grid1((size_t)(ceil((float)(M)) / ((float)DIM_THREAD_BLOCK_KERNEL_1_X)) + 1, 1);

	dim3 block2(DIM_THREAD_BLOCK_KERNEL_2_X, DIM_THREAD_BLOCK_KERNEL_2_Y);
	dim3 grid2((size_t)(ceil((float)(M)) / ((float)DIM_THREAD_BLOCK_KERNEL_2_X)) + 1, 1);

	mean_kernel<<< grid1, block1 >>>(M, N, mean_gpu, data_gpu);
	cudaDeviceSynchronize();
	std_kernel<<< grid2, block2 >>>(M, N, mean_gpu, stddev_gpu, data_gpu);
	cudaDeviceSynchronize();
}

int main(int argc, char *argv[])
{
	DATA_TYPE* data = (DATA_TYPE*)malloc(M * N * sizeof(DATA_TYPE));
	for (int i = 0; i < N; i++)
		for (int j = 0; j < M; j++)
			data[i*M + j] = ((DATA_TYPE) i*j) / M;

	DATA_TYPE *data_gpu, *mean_gpu, *stddev_gpu;
	cudaMalloc((void **)&data_gpu, sizeof(DATA_TYPE) * M * N);
	cudaMalloc((void **)&mean_gpu, sizeof(DATA_TYPE) * M);
	cudaMalloc((void **)&stddev_gpu, sizeof(DATA_TYPE) * M);
	cudaMemcpy(data_gpu, data, sizeof(DATA_TYPE) * M * N, cudaMemcpyHostToDevice);

	correlationCuda(data_gpu, mean_gpu, stddev_gpu);

	cudaFree(data_gpu); cudaFree(mean_gpu); cudaFree(stddev_gpu);
	free(data);
	return 0;
}
