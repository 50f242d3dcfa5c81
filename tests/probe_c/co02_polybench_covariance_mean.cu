// launch: grid cdiv(m, 256) block 256
// sizes: m=300 n=3000
// kernel: mean_kernel
// expect: column
// per-column mean of the data matrix, accumulated straight into mean[j] in global memory (PolyBench-ACC CUDA covariance.cu mean_kernel)
#include <cuda.h>

#define FLOAT_N 3214212.01

typedef float DATA_TYPE;

#define _PB_M m
#define _PB_N n

__global__ void mean_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < _PB_M)
	{
		mean[j] = 0.0;

		int i;
		for(i = 0; i < _PB_N; i++)
		{
			mean[j] += data[i * m + j];
		}
		mean[j] /= (DATA_TYPE)FLOAT_N;
	}
}

__global__ void reduce_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_N) && (j < _PB_M))
	{
		data[i * m + j] -= mean[j];
	}
}
