// style: PolyBench/GPU syrk.cu syrk_kernel: C = alpha*A*A^T + beta*C (full square, no triangle skip)
// launch: grid cdiv(ni, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=189 nj=141 alpha=32412.0 beta=2123.0
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
typedef float DATA_TYPE;

__global__ void syrk_kernel(int ni, int nj, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *c)
{
	/*  C := alpha*A*A' + beta*C */
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < ni) && (j < ni))
	{
		c[i * ni + j] *= beta;
		int k;
		for(k=0; k < nj; k++)
		{
			c[i * ni + j] += alpha * a[i * nj + k] * a[j * nj + k];
		}
	}
}
