// style: PolyBench/GPU 1.0 gemm.cu (#define sizes, DATA_TYPE typedef, accumulates into C in global memory)
// launch: grid cdiv(301, 32), cdiv(333, 8) block 32, 8
// sizes:
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

/* Problem size */
#define NI 333
#define NJ 301
#define NK 277

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

/* Declared constant values for ALPHA and BETA (same as values in PolyBench 2.0) */
#define ALPHA 32412.0f
#define BETA 2123.0f

typedef float DATA_TYPE;

__global__ void gemm_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NI) && (j < NJ))
	{
		c[i * NJ + j] *= BETA;
		int k;
		for(k=0; k < NK; k++)
		{
			c[i * NJ + j] += ALPHA * a[i * NK + k] * b[k * NJ +j];
		}
	}
}

void init(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C)
{
	int i, j;
	for (i = 0; i < NI; i++)
		for (j = 0; j < NK; j++)
			A[i*NK + j] = ((DATA_TYPE) i*j) / NI;
	for (i = 0; i < NK; i++)
		for (j = 0; j < NJ; j++)
			B[i*NJ + j] = ((DATA_TYPE) i*j) / NI;
	for (i = 0; i < NI; i++)
		for (j = 0; j < NJ; j++)
			C[i*NJ + j] = ((DATA_TYPE) i*j) / NI;
}

void gemmCuda(DATA_TYPE* A, DATA_TYPE* B, DATA_TYPE* C, DATA_TYPE* C_outputFromGpu)
{
	DATA_TYPE *A_gpu, *B_gpu, *C_gpu;

	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * NI * NK);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * NK * NJ);
	cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * NI * NJ);

	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * NI * NK, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * NK * NJ, cudaMemcpyHostToDevice);
	cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * NI * NJ, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)(ceil( ((float)NJ)/ ((float)block.x) )),(size_t)(ceil( ((float)NI)/ ((float)block.y) )));

	gemm_kernel<<< grid, block >>>(A_gpu, B_gpu, C_gpu);
	cudaDeviceSynchronize();

	cudaMemcpy(C_outputFromGpu, C_gpu, sizeof(DATA_TYPE) * NI * NJ, cudaMemcpyDeviceToHost);

	cudaFree(A_gpu);
	cudaFree(B_gpu);
	cudaFree(C_gpu);
}

int main(int argc, char *argv[])
{
	DATA_TYPE* A = (DATA_TYPE*)malloc(NI*NK*sizeof(DATA_TYPE));
	DATA_TYPE* B = (DATA_TYPE*)malloc(NK*NJ*sizeof(DATA_TYPE));
	DATA_TYPE* C = (DATA_TYPE*)malloc(NI*NJ*sizeof(DATA_TYPE));
	DATA_TYPE* C_outputFromGpu = (DATA_TYPE*)malloc(NI*NJ*sizeof(DATA_TYPE));

	init(A, B, C);
	gemmCuda(A, B, C, C_outputFromGpu);

	free(A);
	free(B);
	free(C);
	free(C_outputFromGpu);
	return 0;
}
