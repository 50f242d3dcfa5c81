// launch: grid cdiv(N, 32), cdiv(N, 8) block 32, 8
// sizes:
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// SYRK C = alpha*A*A^T + beta*C, both operands read along rows of A (PolyBench/GPU syrk.cu)
#include <cuda.h>

#define N 600
#define M 500

#define ALPHA 12435
#define BETA 4546

typedef float DATA_TYPE;

__global__ void syrk_kernel(DATA_TYPE *a, DATA_TYPE *c)
{
	/*  C := alpha*A*A' + beta*C */
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < N) && (j < N))
	{
		c[i * N + j] *= BETA;
		int k;
		for(k=0; k< M; k++)
		{
			c[i * N + j] += ALPHA * a[i * M + k] * a[j * M + k];
		}
	}
}
