// launch: grid cdiv(ny, 256) block 256
// sizes: nx=3500 ny=410
// kernel: bicg_kernel1
// expect: column
// s = r^T * A, one thread per column of A walking all rows (PolyBench-ACC CUDA bicg.cu bicg_kernel1)
#include <cuda.h>

typedef float DATA_TYPE;

#define _PB_NX nx
#define _PB_NY ny

//Distributed (split) from initial loop and permuted into reverse order to allow parallelism...
__global__ void bicg_kernel1(int nx, int ny, DATA_TYPE *A, DATA_TYPE *r, DATA_TYPE *s)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < _PB_NY)
	{
		s[j] = 0.0f;

		int i;
		for(i = 0; i < _PB_NX; i++)
		{
			s[j] += r[i] * A[i * ny + j];
		}
	}
}

//Distributed (split) from initial loop to allow parallelism
__global__ void bicg_kernel2(int nx, int ny, DATA_TYPE *A, DATA_TYPE *p, DATA_TYPE *q)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < _PB_NX)
	{
		q[i] = 0.0f;

		int j;
		for(j=0; j < _PB_NY; j++)
		{
			q[i] += A[i * ny + j] * p[j];
		}
	}
}
