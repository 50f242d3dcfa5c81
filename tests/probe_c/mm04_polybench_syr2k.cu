// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=520 m=340 alpha=1.25 beta=0.75
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// SYR2K C = alpha*A*B^T + alpha*B*A^T + beta*C, one element per thread (PolyBench-ACC CUDA syr2k.cu)
#include <cuda.h>

typedef float DATA_TYPE;

#define _PB_N n
#define _PB_M m

__global__ void syr2k_kernel(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_N) && (j < _PB_N))
	{
		c[i * n + j] *= beta;

		int k;
		for(k = 0; k < _PB_M; k++)
		{
			c[i * n + j] += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
		}
	}
}
