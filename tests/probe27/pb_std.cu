// launch: grid cdiv(M, 256) block 256
// sizes: M=700 N=900 float_n=900.0 eps=0.005
// expect: column
/* PolyBench/GPU correlation, std kernel: per-column standard deviations */
__global__ void std_kernel(int M, int N, float *mean, float *std, float *data, float float_n, float eps)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < M)
	{
		std[j] = 0.0;

		int i;
		for(i = 0; i < N; i++)
		{
			std[j] += (data[i*M + j] - mean[j]) * (data[i*M + j] - mean[j]);
		}
		std[j] /= (float_n);
		std[j] = sqrtf(std[j]);
		if(std[j] <= eps)
		{
			std[j] = 1.0;
		}
	}
}
