// style: PolyBench/GPU 1.0 syr2k.cu (#define N/M, C := alpha*A*B' + alpha*B*A' + beta*C), with host main
// launch: grid cdiv(219, 32), cdiv(219, 8) block 32, 8
// sizes:
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

/* Problem size */
#define N 219
#define M 181

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

/* Declared constant values for ALPHA and BETA (same as values in PolyBench 2.0) */
#define ALPHA 12435
#define BETA 4546

typedef float DATA_TYPE;

__global__ void syr2k_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < N) && (j < N))
	{
		c[i * N + j] *= BETA;

		int k;
		for(k = 0; k < M; k++)
		{
			c[i * N + j] += ALPHA * a[i * M + k] * b[j * M + k] + ALPHA * b[i * M + k] * a[j * M + k];
		}
	}
}

int main()
{
	DATA_TYPE* A = (DATA_TYPE*)malloc(N*M*sizeof(DATA_TYPE));
	DATA_TYPE* B = (DATA_TYPE*)malloc(N*M*sizeof(DATA_TYPE));
	DATA_TYPE* C = (DATA_TYPE*)malloc(N*N*sizeof(DATA_TYPE));
	for (int t = 0; t < N*M; t++) { A[t] = (DATA_TYPE)(t % 13) / N; B[t] = (DATA_TYPE)(t % 11) / N; }
	for (int t = 0; t < N*N; t++) C[t] = (DATA_TYPE)(t % 17) / N;

	DATA_TYPE *A_gpu, *B_gpu, *C_gpu;
	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * N * M);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * N * M);
	cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * N * N);
	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * N * M, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * N * M, cudaMemcpyHostToDevice);
	cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * N * N, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)ceil( ((float)N) / ((float)DIM_THREAD_BLOCK_X) ), (size_t)(ceil( ((float)N) / ((float)DIM_THREAD_BLOCK_Y) )));
	syr2k_kernel<<<grid,block>>>(A_gpu, B_gpu, C_gpu);
	cudaDeviceSynchronize();
	cudaMemcpy(C, C_gpu, sizeof(DATA_TYPE) * N * N, cudaMemcpyDeviceToHost);

	cudaFree(A_gpu); cudaFree(B_gpu); cudaFree(C_gpu);
	free(A); free(B); free(C);
	return 0;
}
