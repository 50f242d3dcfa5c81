// launch: grid cdiv(NY, 256) block 256
// sizes: NX=800 NY=1100
// expect: column
/* PolyBench/GPU bicg, first kernel: s = A^T r */
#define DATA_TYPE float

__global__ void bicg_kernel1(int NX, int NY, DATA_TYPE *A, DATA_TYPE *r, DATA_TYPE *s)
{
	int j = blockDim.x * blockIdx.x + threadIdx.x;

	if (j < NY)
	{
		s[j] = 0.0f;

		int i;
		for(i = 0; i < NX; i++)
		{
			s[j] += A[i * NY + j] * r[i];
		}
	}
}
