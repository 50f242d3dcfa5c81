// launch: grid cdiv(n, 256) block 256
// sizes: n=2000
// kernel: mvt_kernel2
// expect: column
// x2 += A^T * y_2, a thread per column of a, updating x2[i] in global memory (PolyBench-ACC CUDA mvt.cu mvt_kernel2)
#include <cuda.h>

typedef float DATA_TYPE;

#define _PB_N n

__global__ void mvt_kernel1(int n, DATA_TYPE *a, DATA_TYPE *x1, DATA_TYPE *y_1)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < _PB_N)
	{
		int j;
		for(j=0; j < _PB_N; j++)
		{
			x1[i] += a[i * n + j] * y_1[j];
		}
	}
}

__global__ void mvt_kernel2(int n, DATA_TYPE *a, DATA_TYPE *x2, DATA_TYPE *y_2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < _PB_N)
	{
		int j;
		for(j=0; j < _PB_N; j++)
		{
			x2[i] += a[j * n + i] * y_2[j];
		}
	}
}
