// style: PolyBench-ACC CUDA covariance.cu mean_kernel (thread per column j, accumulates into mean[j] in global, 1-based)
// launch: grid cdiv(m, 256) block 256
// sizes: m=211 n=187 float_n=187.0
// expect: column
typedef float DATA_TYPE;

__global__ void mean_kernel(int m, int n, DATA_TYPE *mean, DATA_TYPE *data, DATA_TYPE float_n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x + 1;

	if ((j >= 1) && (j < (m+1)))
	{
		mean[j] = 0.0;

		int i;
		for(i = 1; i < (n+1); i++)
		{
			mean[j] += data[i * (m+1) + j];
		}
		mean[j] /= (DATA_TYPE)float_n;
	}
}
