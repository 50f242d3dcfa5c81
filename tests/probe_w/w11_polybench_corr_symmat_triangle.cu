// style: PolyBench/ACC correlation corr_kernel (the product step symmat = data^T . data): 1-D thread per column j1, inner j2 loop over the upper triangle only, symmat[j1][j2] zeroed then accumulated in global memory over i, mirrored to symmat[j2][j1]; diagonal set to 1.0 and the last diagonal handled by the last thread
// launch: grid cdiv(m, 256) block 256
// sizes: m=71 n=93
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

/* Thread block dimensions for kernel 4*/
#define DIM_THREAD_BLOCK_KERNEL_4_X 256
#define DIM_THREAD_BLOCK_KERNEL_4_Y 1

typedef float DATA_TYPE;

#define _PB_M m
#define _PB_N n

__global__ void corr_kernel(int m, int n, DATA_TYPE *symmat, DATA_TYPE *data)
{
	int j1 = blockIdx.x * blockDim.x + threadIdx.x;

	int i, j2;
	if (j1 < (_PB_M-1))
	{
		symmat[j1*m + j1] = 1.0;

		for (j2 = (j1 + 1); j2 < _PB_M; j2++)
		{
			symmat[j1*m + j2] = 0.0;

			for(i = 0; i < _PB_N; i++)
			{
				symmat[j1*m + j2] += data[i*m + j1] * data[i*m + j2];
			}
			symmat[j2*m + j1] = symmat[j1*m + j2];
		}
	}
	else if (j1 == (_PB_M-1))
	{
		symmat[(m-1)*m + (m-1)] = 1.0;
	}
}

void correlationCuda_corr(int m, int n, DATA_TYPE *data_gpu, DATA_TYPE *symmat_gpu)
{
	dim3 block4(DIM_THREAD_BLOCK_KERNEL_4_X, DIM_THREAD_BLOCK_KERNEL_4_Y);
	dim3 grid4((size_t)(ceil((float)(m)) / ((float)DIM_THREAD_BLOCK_KERNEL_4_X)) + 1, 1);
	corr_kernel<<< grid4, block4 >>>(m, n, symmat_gpu, data_gpu);
	cudaDeviceSynchronize();
}
