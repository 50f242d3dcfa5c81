// style: PolyBench/GPU syrk port: DATA_TYPE macro, upper-case ALPHA/BETA arguments, _PB_N/_PB_M size macros, tab indentation; C = ALPHA*A*A^T + BETA*C on the lower triangle only (j <= i)
// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: ALPHA=1.25 BETA=0.75 n=67 m=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#define DATA_TYPE float
#define _PB_N n
#define _PB_M m

/* A is N x M, C is N x N (row-major); only C[i][j] with j <= i is updated */
__global__ void syrk_kernel(DATA_TYPE ALPHA, DATA_TYPE BETA, DATA_TYPE *a, DATA_TYPE *c, int n, int m)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_N) && (j <= i))
	{
		DATA_TYPE tmp = 0;
		int k;
		for (k = 0; k < _PB_M; k++)
		{
			tmp += a[i * _PB_M + k] * a[j * _PB_M + k];
		}
		c[i * _PB_N + j] = BETA * c[i * _PB_N + j] + ALPHA * tmp;
	}
}
