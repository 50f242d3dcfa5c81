// style: PolyBench-ACC CUDA covariance.cu covar_kernel (1-based (M+1)-strided data, one thread per j1, triangular j2 loop)
// launch: grid cdiv(m, 256) block 256
// sizes: m=211 n=187
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
typedef float DATA_TYPE;

#define DIM_THREAD_BLOCK_KERNEL_3_X 256
#define DIM_THREAD_BLOCK_KERNEL_3_Y 1

__global__ void covar_kernel(int m, int n, DATA_TYPE *symmat, DATA_TYPE *data)
{
	int j1 = blockIdx.x * blockDim.x + threadIdx.x + 1;
	int i, j2;

	if ((j1 >= 1) && (j1 < (m+1)))
	{
		for (j2 = j1; j2 < (m+1); j2++)
		{
			symmat[j1*(m+1) + j2] = 0.0;
			for(i = 1; i < (n+1); i++)
			{
				symmat[j1 * (m+1) + j2] += data[i *(m+1) + j1] * data[i *(m+1) + j2];
			}
			symmat[j2 * (m+1) + j1] = symmat[j1 * (m+1) + j2];
		}
	}
}
