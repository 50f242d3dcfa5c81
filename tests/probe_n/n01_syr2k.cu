// style: PolyBench/GPU syr2k -- DATA_TYPE typedef, i/j from x/y swapped, A*B^T and B*A^T summed inside one k loop
// launch: grid cdiv(ni, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=67 nj=45 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

typedef float DATA_TYPE;

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

/* C := alpha*A*B' + alpha*B*A' + beta*C,  A,B are ni x nj, C is ni x ni */
__global__ void syr2k_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c,
                             DATA_TYPE alpha, DATA_TYPE beta, int ni, int nj)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < ni) && (j < ni))
	{
		c[i * ni + j] *= beta;

		int k;
		for (k = 0; k < nj; k++)
		{
			c[i * ni + j] += alpha * a[i * nj + k] * b[j * nj + k]
			               + alpha * b[i * nj + k] * a[j * nj + k];
		}
	}
}
