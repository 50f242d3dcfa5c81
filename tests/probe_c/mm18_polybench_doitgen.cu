// launch: grid cdiv(np, 32), cdiv(nq, 8) block 32, 8
// sizes: nr=10 nq=120 np=140 r=4
// kernel: doitgen_kernel1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// doitgen slice r: sum[r][q][p] = sum_s A[r][q][s] * C4[s][p], accumulated in global memory (PolyBench-ACC CUDA doitgen.cu)
#include <cuda.h>

typedef float DATA_TYPE;

#define _PB_NR nr
#define _PB_NQ nq
#define _PB_NP np

__global__ void doitgen_kernel1(int nr, int nq, int np, DATA_TYPE *sum, DATA_TYPE *A, DATA_TYPE *C4, int r)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	int q = blockIdx.y * blockDim.y + threadIdx.y;

	if ((p < np) && (q < nq))
	{
		sum[r * (nq * np) + q * np + p] = (DATA_TYPE)0.0;

		for (int s = 0; s < np; s++)
		{
			sum[r * (nq * np) + q * np + p] = sum[r * (nq * np) + q * np + p] + A[r * (nq * np) + q * np + s] * C4[s * np + p];
		}
	}
}

__global__ void doitgen_kernel2(int nr, int nq, int np, DATA_TYPE *sum, DATA_TYPE *A, DATA_TYPE *C4, int r)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	int q = blockIdx.y * blockDim.y + threadIdx.y;

	if ((p < np) && (q < nq))
	{
		A[r * (nq * np) + q * np + p] = sum[r * (nq * np) + q * np + p];
	}
}

void doitgenCuda(int nr, int nq, int np, DATA_TYPE *sumGpu, DATA_TYPE *AGpu, DATA_TYPE *C4Gpu)
{
	dim3 block(32, 8);
	dim3 grid((unsigned int)ceil(((float)np) / ((float)block.x)), (unsigned int)ceil(((float)nq) / ((float)block.y)));

	for (int r = 0; r < _PB_NR; r++)
	{
		doitgen_kernel1 <<<grid, block>>> (nr, nq, np, sumGpu, AGpu, C4Gpu, r);
		cudaDeviceSynchronize();
		doitgen_kernel2 <<<grid, block>>> (nr, nq, np, sumGpu, AGpu, C4Gpu, r);
		cudaDeviceSynchronize();
	}
}
