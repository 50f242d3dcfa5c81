// style: PolyBench-GPU syrk.cu: C = alpha*A*A^T + beta*C with #define'd N/M, beta scaling then += into global memory
// launch: grid cdiv(1024, 32), cdiv(1024, 8) block 32, 8
// sizes: ALPHA=32412.0 BETA=2123.0
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

/* Problem size */
#define N 1024
#define M 1024

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

/* Can switch DATA_TYPE between float and double */
typedef float DATA_TYPE;

void init_arrays(DATA_TYPE* A, DATA_TYPE* C)
{
	int i, j;
	for (i = 0; i < N; i++)
	{
		for (j = 0; j < M; j++)
		{
			A[i*M + j] = ((DATA_TYPE) i*j) / N;
		}
		for (j = 0; j < N; j++)
		{
			C[i*M + j] = ((DATA_TYPE) i*j + 2) / N;
		}
	}
}

__global__ void syrk_kernel(DATA_TYPE ALPHA, DATA_TYPE BETA, DATA_TYPE *a, DATA_TYPE *c)
{
	/*  C := alpha*A*A' + beta*C */
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < N) && (j < N))
	{
		c[i * N + j] *= BETA;
		int k;
		for(k=0; k< M; k++)
		{
			c[i * N + j] += ALPHA * a[i * M + k] * a[j * M + k];
		}
	}
}

void syrkCuda(DATA_TYPE* A, DATA_TYPE* C, DATA_TYPE* C_outputFromGpu)
{
	DATA_TYPE* A_gpu;
	DATA_TYPE* C_gpu;
	DATA_TYPE alpha = 32412;
	DATA_TYPE beta = 2123;

	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * N * M);
	cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * N * N);
	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * N * M, cudaMemcpyHostToDevice);
	cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * N * N, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)(ceil(((float)N) / ((float)DIM_THREAD_BLOCK_X))), (size_t)ceil(((float)N) / ((float)DIM_THREAD_BLOCK_Y)));
	syrk_kernel<<<grid,block>>>(alpha, beta, A_gpu, C_gpu);
	cudaDeviceSynchronize();

	cudaMemcpy(C_outputFromGpu, C_gpu, sizeof(DATA_TYPE) * N * N, cudaMemcpyDeviceToHost);
	cudaFree(A_gpu);
	cudaFree(C_gpu);
}

int main()
{
	DATA_TYPE* A = (DATA_TYPE*)malloc(N*M*sizeof(DATA_TYPE));
	DATA_TYPE* C = (DATA_TYPE*)malloc(N*M*sizeof(DATA_TYPE));
	DATA_TYPE* C_outputFromGpu = (DATA_TYPE*)malloc(N*M*sizeof(DATA_TYPE));

	init_arrays(A, C);
	syrkCuda(A, C, C_outputFromGpu);
	printf("%f\n", C_outputFromGpu[N + 1]);

	free(A);
	free(C);
	free(C_outputFromGpu);
	return 0;
}
