// launch: grid cdiv(m, 256) block 256
// sizes: m=320 n=2800
// kernel: std_kernel
// expect: column
// per-column standard deviation with the EPS clamp, reading mean[j] and updating std[j] in global memory (PolyBench-ACC CUDA correlation.cu std_kernel)
#include <cuda.h>
#include <math.h>

#define FLOAT_N 3214212.01
#define EPS 0.005

typedef float DATA_TYPE;

#define _PB_M m
#define _PB_N n

__global__ void std_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *std, DATA_TYPE *data)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < _PB_M)
	{
		std[j] = 0.0;

		int i;
		for(i = 0; i < _PB_N; i++)
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
