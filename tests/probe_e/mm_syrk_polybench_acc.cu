// style: PolyBench-ACC CUDA syrk.cu (C := alpha*A*A' + beta*C, size parameters, accumulates in global)
// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=213 m=177 alpha=1.5 beta=1.2
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
typedef float DATA_TYPE;

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void syrk_kernel(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *c)
{
	/*  C := alpha*A*A' + beta*C */
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < n) && (j < n))
	{
		c[i * n + j] *= beta;
		int k;
		for(k=0; k < m; k++)
		{
			c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
		}
	}
}
