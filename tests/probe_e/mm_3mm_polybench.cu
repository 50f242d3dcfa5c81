// style: PolyBench/GPU 1.0 3mm.cu (#define sizes, three kernels, G := E*F with G zeroed then accumulated in global), host main
// launch: grid cdiv(207, 32), cdiv(171, 8) block 32, 8
// sizes:
// kernel: mm3_kernel3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

/* Problem size. */
#define NI 171
#define NJ 189
#define NK 155
#define NL 207
#define NM 143

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void mm3_kernel1(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *E)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NI) && (j < NJ))
	{
		E[i * NJ + j] = 0;
		int k;
		for(k=0; k < NK; k++)
		{
			E[i * NJ + j] += A[i * NK + k] * B[k * NJ + j];
		}
	}
}

__global__ void mm3_kernel2(DATA_TYPE *C, DATA_TYPE *D, DATA_TYPE *F)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NJ) && (j < NL))
	{
		F[i * NL + j] = 0;
		int k;
		for(k=0; k < NM; k++)
		{
			F[i * NL + j] += C[i * NM + k] * D[k * NL +j];
		}
	}
}

__global__ void mm3_kernel3(DATA_TYPE *E, DATA_TYPE *F, DATA_TYPE *G)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NI) && (j < NL))
	{
		G[i * NL + j] = 0;
		int k;
		for(k=0; k < NJ; k++)
		{
			G[i * NL + j] += E[i * NJ + k] * F[k * NL + j];
		}
	}
}

int main(int argc, char** argv)
{
	DATA_TYPE *A = (DATA_TYPE*)malloc(NI*NK*sizeof(DATA_TYPE));
	DATA_TYPE *B = (DATA_TYPE*)malloc(NK*NJ*sizeof(DATA_TYPE));
	DATA_TYPE *C = (DATA_TYPE*)malloc(NJ*NM*sizeof(DATA_TYPE));
	DATA_TYPE *D = (DATA_TYPE*)malloc(NM*NL*sizeof(DATA_TYPE));
	DATA_TYPE *G = (DATA_TYPE*)malloc(NI*NL*sizeof(DATA_TYPE));
	for (int t = 0; t < NI*NK; t++) A[t] = (DATA_TYPE)(t % 9) / NI;
	for (int t = 0; t < NK*NJ; t++) B[t] = (DATA_TYPE)(t % 7) / NJ;
	for (int t = 0; t < NJ*NM; t++) C[t] = (DATA_TYPE)(t % 5) / NL;
	for (int t = 0; t < NM*NL; t++) D[t] = (DATA_TYPE)(t % 3) / NK;

	DATA_TYPE *A_gpu, *B_gpu, *C_gpu, *D_gpu, *E_gpu, *F_gpu, *G_gpu;
	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * NI * NK);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * NK * NJ);
	cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * NJ * NM);
	cudaMalloc((void **)&D_gpu, sizeof(DATA_TYPE) * NM * NL);
	cudaMalloc((void **)&E_gpu, sizeof(DATA_TYPE) * NI * NJ);
	cudaMalloc((void **)&F_gpu, sizeof(DATA_TYPE) * NJ * NL);
	cudaMalloc((void **)&G_gpu, sizeof(DATA_TYPE) * NI * NL);
	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * NI * NK, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * NK * NJ, cudaMemcpyHostToDevice);
	cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * NJ * NM, cudaMemcpyHostToDevice);
	cudaMemcpy(D_gpu, D, sizeof(DATA_TYPE) * NM * NL, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid1((size_t)(ceil( ((float)NJ) / ((float)DIM_THREAD_BLOCK_X) )),(size_t)(ceil((float)NI/ ((float)DIM_THREAD_BLOCK_Y) )));
	dim3 grid2((size_t)(ceil( ((float)NL) / ((float)DIM_THREAD_BLOCK_X) )),(size_t)(ceil((float)NJ/ ((float)DIM_THREAD_BLOCK_Y) )));
	dim3 grid3((size_t)(ceil( ((float)NL) / ((float)DIM_THREAD_BLOCK_X) )),(size_t)(ceil((float)NI/ ((float)DIM_THREAD_BLOCK_Y) )));

	mm3_kernel1<<<grid1,block>>>(A_gpu, B_gpu, E_gpu);
	cudaDeviceSynchronize();
	mm3_kernel2<<<grid2,block>>>(C_gpu, D_gpu, F_gpu);
	cudaDeviceSynchronize();
	mm3_kernel3<<<grid3,block>>>(E_gpu, F_gpu, G_gpu);
	cudaDeviceSynchronize();
	cudaMemcpy(G, G_gpu, sizeof(DATA_TYPE) * NI * NL, cudaMemcpyDeviceToHost);

	cudaFree(A_gpu); cudaFree(B_gpu); cudaFree(C_gpu); cudaFree(D_gpu);
	cudaFree(E_gpu); cudaFree(F_gpu); cudaFree(G_gpu);
	free(A); free(B); free(C); free(D); free(G);
	return 0;
}
