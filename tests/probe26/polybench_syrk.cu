// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=500 m=600 alpha=1.5 beta=1.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
typedef float DATA_TYPE;
__global__ void syrk_kernel(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if ((i < n) && (j < n))
	{
		c[i * n + j] *= beta;
		int k;
		for(k=0; k< m; k++)
		{
			c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
		}
	}
}
