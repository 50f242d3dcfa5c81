// launch: grid cdiv(NY, 256) block 256
// sizes: NX=900 NY=1000
// expect: column
/* PolyBench/GPU atax, second kernel: y = A^T tmp, one thread per column */
typedef float DATA_TYPE;

__global__ void atax_kernel2(int NX, int NY, DATA_TYPE *A, DATA_TYPE *y, DATA_TYPE *tmp)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < NY)
	{
		int i;
		for(i=0; i < NX; i++)
		{
			y[j] += A[i * NY + j] * tmp[i];
		}
	}
}
