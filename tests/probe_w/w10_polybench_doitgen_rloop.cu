// style: PolyBench/ACC doitgen kernel1 (sum[r][q][p] = sum_s A[r][q][s] * C4[s][p]) with the host's per-r launch loop folded into an outer `for (r = 0; r < _PB_NR; r++)` batch loop inside the kernel, flattened r*(nq*np) + q*np + p indexing and sum[] accumulated in global memory via `sum[...] = sum[...] + ...`
// kernel: doitgen_kernel1
// launch: grid cdiv(np, 32), cdiv(nq, 8) block 32, 8
// sizes: nr=3 nq=53 np=71
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

#define _PB_NR nr
#define _PB_NQ nq
#define _PB_NP np

__global__ void doitgen_kernel1(int nr, int nq, int np, DATA_TYPE *sum, DATA_TYPE *A, DATA_TYPE *C4)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	int q = blockIdx.y * blockDim.y + threadIdx.y;
	int r, s;

	if ((p < _PB_NP) && (q < _PB_NQ))
	{
		for (r = 0; r < _PB_NR; r++)
		{
			sum[r * (nq * np) + q * np + p] = (DATA_TYPE)0.0;

			for (s = 0; s < _PB_NP; s++)
			{
				sum[r * (nq * np) + q * np + p] = sum[r * (nq * np) + q * np + p] + A[r * (nq * np) + q * np + s] * C4[s * np + p];
			}
		}
	}
}

__global__ void doitgen_kernel2(int nr, int nq, int np, DATA_TYPE *sum, DATA_TYPE *A, DATA_TYPE *C4)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	int q = blockIdx.y * blockDim.y + threadIdx.y;
	int r;

	if ((p < _PB_NP) && (q < _PB_NQ))
	{
		for (r = 0; r < _PB_NR; r++)
		{
			A[r * (nq * np) + q * np + p] = sum[r * (nq * np) + q * np + p];
		}
	}
}

void doitgenCuda(int nr, int nq, int np, DATA_TYPE *AGpu, DATA_TYPE *C4Gpu, DATA_TYPE *sumGpu)
{
	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((unsigned int)ceil( ((float)np) / ((float)block.x) ), (unsigned int)ceil( ((float)nq) / ((float)block.y) ));

	doitgen_kernel1<<<grid, block>>>(nr, nq, np, sumGpu, AGpu, C4Gpu);
	cudaDeviceSynchronize();
	doitgen_kernel2<<<grid, block>>>(nr, nq, np, sumGpu, AGpu, C4Gpu);
	cudaDeviceSynchronize();
}
