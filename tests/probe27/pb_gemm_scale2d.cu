// launch: grid cdiv(NJ, 32), cdiv(NI, 8) block 32, 8
// sizes: NI=1000 NJ=1100 beta=1.2
// expect: elementwise
/* an element-wise C *= beta over a 2-D grid, as the first step of PolyBench's gemm splits it */
__global__ void scale_c(int NI, int NJ, float beta, float *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NI) && (j < NJ))
	{
		c[i * NJ + j] *= beta;
	}
}
