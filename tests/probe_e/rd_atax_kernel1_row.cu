// style: PolyBench-ACC CUDA atax.cu atax_kernel1 (tmp = A*x, one thread per row, accumulates into tmp[i] in global)
// launch: grid cdiv(nx, 256) block 256
// sizes: nx=411 ny=373
// expect: row-warp|row-block
typedef float DATA_TYPE;

__global__ void atax_kernel1(int nx, int ny, DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *tmp)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < nx)
	{
		tmp[i] = 0;
		int j;
		for(j=0; j < ny; j++)
		{
			tmp[i] += A[i*ny + j] * x[j];
		}
	}
}
