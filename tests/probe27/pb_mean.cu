// launch: grid cdiv(M, 256) block 256
// sizes: M=700 N=900 float_n=900.0
// expect: column
/* PolyBench/GPU covariance, mean kernel: per-column means */
__global__ void mean_kernel(int M, int N, float *mean, float *data, float float_n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < M)
	{
		mean[j] = 0.0;

		int i;
		for(i = 0; i < N; i++)
		{
			mean[j] += data[i * M + j];
		}
		mean[j] /= (float)float_n;
	}
}
