// launch: grid cdiv(NJ, 32), cdiv(NI, 8) block 32, 8
// PolyBench-style: sizes as #defines, a typedef'd element type, beta then alpha accumulated in the output
// recognise: rows y, columns x, global, alpha
#define NI 37
#define NJ 53
#define NK 29
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
