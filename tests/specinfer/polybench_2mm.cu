// PolyBench-GPU style: sizes are #defines the kernel uses itself (fixed), the element type a typedef,
// the grid from ceil() of float divisions in the host code.
// expect: tmp [NI, NJ] inout; A [NI, NK] in; B [NK, NJ] in; fixed
#include <math.h>
#include <cuda_runtime.h>

#define NI 40
#define NJ 48
#define NK 36
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void mm2_kernel1(DATA_TYPE *tmp, DATA_TYPE *A, DATA_TYPE *B)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NI) && (j < NJ))
	{
		int k;
		for (k = 0; k < NK; k++)
		{
			tmp[i * NJ + j] += A[i * NK + k] * B[k * NJ + j];
		}
	}
}

void mm2Cuda(DATA_TYPE* tmp_gpu, DATA_TYPE* A_gpu, DATA_TYPE* B_gpu)
{
	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid1((size_t)ceil( ((float)NJ) / ((float)block.x) ), (size_t)ceil( ((float)NI) / ((float)block.y)) );
	mm2_kernel1<<<grid1,block>>>(tmp_gpu, A_gpu, B_gpu);
	cudaThreadSynchronize();
}
