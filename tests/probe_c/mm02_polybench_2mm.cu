// launch: grid cdiv(nl, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=300 nj=420 nk=260 nl=380 alpha=1.5 beta=1.2
// kernel: mm2_kernel2
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// second product of 2mm, D = beta*D + tmp*C with the sum kept in global memory (PolyBench-ACC CUDA 2mm.cu)
#include <stdio.h>
#include <cuda.h>

typedef float DATA_TYPE;

#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk
#define _PB_NL nl

__global__ void mm2_kernel1(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *A, DATA_TYPE *B)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NI) && (j < _PB_NJ))
	{
		tmp[i * nj + j] = 0;
		int k;
		for (k = 0; k < _PB_NK; k++)
		{
			tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
		}
	}
}

__global__ void mm2_kernel2(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *C, DATA_TYPE *D)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NI) && (j < _PB_NL))
	{
		D[i * nl + j] *= beta;
		int k;
		for (k = 0; k < _PB_NJ; k++)
		{
			D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
		}
	}
}
