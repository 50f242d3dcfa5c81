// style: PolyBench/GPU 2mm.cu (mm2_kernel1 tmp = alpha*A*B, mm2_kernel2 D = beta*D + tmp*C); probing kernel 2
// launch: grid cdiv(nl, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=171 nj=143 nk=119 nl=197 alpha=32412.0 beta=2123.0
// kernel: mm2_kernel2
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
typedef float DATA_TYPE;

__global__ void mm2_kernel1(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *A, DATA_TYPE *B)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < ni) && (j < nj))
	{
		tmp[i * nj + j] = 0;
		int k;
		for (k = 0; k < nk; k++)
		{
			tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
		}
	}
}

__global__ void mm2_kernel2(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *C, DATA_TYPE *D)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < ni) && (j < nl))
	{
		D[i * nl + j] *= beta;
		int k;
		for (k = 0; k < nj; k++)
		{
			D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
		}
	}
}
