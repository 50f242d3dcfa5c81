// launch: grid cdiv(n, 256) block 256
// sizes: n=1000
// expect: column
/* PolyBench/GPU mvt, second kernel: x2 += A^T y2 */
__global__ void mvt_kernel2(int n, float *a, float *x2, float *y_2)
{
	int i = blockDim.x * blockIdx.x + threadIdx.x;

	if (i < n)
	{
		int j;
		for(j=0; j < n; j++)
		{
			x2[i] += a[j * n + i] * y_2[j];
		}
	}
}
