// launch: grid 16, 64 block 32, 8
// sizes:  alpha=1.5 beta=1.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
#define NI 512
#define NJ 512
#define NK 512
typedef float DATA_TYPE;
__global__ void gemm_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c, DATA_TYPE alpha, DATA_TYPE beta)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NI) && (j < NJ))
	{
		c[i * NJ + j] *= beta;
		int k;
		for(k=0; k < NK; k++)
		{
			c[i * NJ + j] += alpha * a[i * NK + k] * b[k * NJ +j];
		}
	}
}
