// style: PolyBench-GPU 2mm.cu chain: kernel1 tmp = alpha*A*B, kernel2 D = beta*D + tmp*C, #define'd NI/NJ/NK/NL, += into global memory; first step is for kernel1
// launch: grid cdiv(1024, 32), cdiv(1024, 8) block 32, 8
// sizes: alpha=32412.0 beta=2123.0
// kernel: mm2_kernel1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

/* Problem size. */
#define NI 1024
#define NJ 1024
#define NK 1024
#define NL 1024

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void mm2_kernel1(DATA_TYPE alpha, DATA_TYPE *tmp, DATA_TYPE *A, DATA_TYPE *B)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NI) && (j < NJ))
	{
		tmp[i * NJ + j] = 0;
		int k;
		for (k = 0; k < NK; k++)
		{
			tmp[i * NJ + j] += alpha * A[i * NK + k] * B[k * NJ + j];
		}
	}
}

__global__ void mm2_kernel2(DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *C, DATA_TYPE *D)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NI) && (j < NL))
	{
		D[i * NL + j] *= beta;
		int k;
		for (k = 0; k < NJ; k++)
		{
			D[i * NL + j] += tmp[i * NJ + k] * C[k * NL + j];
		}
	}
}

void init_array(DATA_TYPE* A, DATA_TYPE* B, DATA_TYPE* C, DATA_TYPE* D)
{
	int i, j;
	for (i = 0; i < NI; i++)
		for (j = 0; j < NK; j++)
			A[i*NK + j] = ((DATA_TYPE) i*j) / NI;
	for (i = 0; i < NK; i++)
		for (j = 0; j < NJ; j++)
			B[i*NJ + j] = ((DATA_TYPE) i*(j+1)) / NJ;
	for (i = 0; i < NJ; i++)
		for (j = 0; j < NL; j++)
			C[i*NL + j] = ((DATA_TYPE) i*(j+3)) / NL;
	for (i = 0; i < NI; i++)
		for (j = 0; j < NL; j++)
			D[i*NL + j] = ((DATA_TYPE) i*(j+2)) / NK;
}

void mm2Cuda(DATA_TYPE* A, DATA_TYPE* B, DATA_TYPE* C, DATA_TYPE* D, DATA_TYPE* D_outputFromGpu)
{
	DATA_TYPE *tmp_gpu, *A_gpu, *B_gpu, *C_gpu, *D_gpu;
	DATA_TYPE alpha = 32412, beta = 2123;

	cudaMalloc((void **)&tmp_gpu, sizeof(DATA_TYPE) * NI * NJ);
	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * NI * NK);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * NK * NJ);
	cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * NJ * NL);
	cudaMalloc((void **)&D_gpu, sizeof(DATA_TYPE) * NI * NL);

	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * NI * NK, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * NK * NJ, cudaMemcpyHostToDevice);
	cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * NJ * NL, cudaMemcpyHostToDevice);
	cudaMemcpy(D_gpu, D, sizeof(DATA_TYPE) * NI * NL, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid1((size_t)ceil(((float)NJ) / ((float)block.x)), (size_t)ceil(((float)NI) / ((float)block.y)));
	dim3 grid2((size_t)ceil(((float)NL) / ((float)block.x)), (size_t)ceil(((float)NI) / ((float)block.y)));

	mm2_kernel1<<<grid1, block>>>(alpha, tmp_gpu, A_gpu, B_gpu);
	cudaDeviceSynchronize();
	mm2_kernel2<<<grid2, block>>>(beta, tmp_gpu, C_gpu, D_gpu);
	cudaDeviceSynchronize();

	cudaMemcpy(D_outputFromGpu, D_gpu, sizeof(DATA_TYPE) * NI * NL, cudaMemcpyDeviceToHost);
	cudaFree(tmp_gpu); cudaFree(A_gpu); cudaFree(B_gpu); cudaFree(C_gpu); cudaFree(D_gpu);
}

int main(int argc, char** argv)
{
	DATA_TYPE* A = (DATA_TYPE*)malloc(NI*NK*sizeof(DATA_TYPE));
	DATA_TYPE* B = (DATA_TYPE*)malloc(NK*NJ*sizeof(DATA_TYPE));
	DATA_TYPE* C = (DATA_TYPE*)malloc(NJ*NL*sizeof(DATA_TYPE));
	DATA_TYPE* D = (DATA_TYPE*)malloc(NI*NL*sizeof(DATA_TYPE));
	DATA_TYPE* D_outputFromGpu = (DATA_TYPE*)malloc(NI*NL*sizeof(DATA_TYPE));

	init_array(A, B, C, D);
	mm2Cuda(A, B, C, D, D_outputFromGpu);
	printf("D[0] = %f\n", D_outputFromGpu[0]);

	free(A); free(B); free(C); free(D); free(D_outputFromGpu);
	return 0;
}
