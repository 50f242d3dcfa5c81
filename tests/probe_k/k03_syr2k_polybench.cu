// style: PolyBench-GPU flavour, problem sizes as #define macros and a DATA_TYPE typedef, no scalar parameters; C = A*B^T + B*A^T in one local sum, threadIdx.x on column, host main with CPU check
// launch: grid cdiv(N, 32), cdiv(N, 8) block 32, 8
// sizes: N=129 M=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

/* Problem size */
#define N 129
#define M 45

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

#define PERCENT_DIFF_ERROR_THRESHOLD 0.05

typedef float DATA_TYPE;

__global__ void syr2k_sum_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < N) && (j < N))
	{
		DATA_TYPE tmp = 0;
		int k;
		for (k = 0; k < M; k++)
		{
			tmp += a[i * M + k] * b[j * M + k] + b[i * M + k] * a[j * M + k];
		}
		c[i * N + j] = tmp;
	}
}

void init_arrays(DATA_TYPE *A, DATA_TYPE *B)
{
	int i, j;
	for (i = 0; i < N; i++)
		for (j = 0; j < M; j++)
		{
			A[i * M + j] = ((DATA_TYPE)i * j) / N;
			B[i * M + j] = ((DATA_TYPE)i * j + 2) / N;
		}
}

void syr2k_cpu(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C)
{
	int i, j, k;
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
		{
			C[i * N + j] = 0;
			for (k = 0; k < M; k++)
				C[i * N + j] += A[i * M + k] * B[j * M + k] + B[i * M + k] * A[j * M + k];
		}
}

float percentDiff(double val1, double val2)
{
	if ((fabs(val1) < 0.01) && (fabs(val2) < 0.01))
		return 0.0f;
	return 100.0f * (fabs(fabs(val1 - val2) / fabs(val1 + 0.00000001f)));
}

int main()
{
	DATA_TYPE *A = (DATA_TYPE *)malloc(N * M * sizeof(DATA_TYPE));
	DATA_TYPE *B = (DATA_TYPE *)malloc(N * M * sizeof(DATA_TYPE));
	DATA_TYPE *C = (DATA_TYPE *)malloc(N * N * sizeof(DATA_TYPE));
	DATA_TYPE *C_outputFromGpu = (DATA_TYPE *)malloc(N * N * sizeof(DATA_TYPE));
	init_arrays(A, B);

	DATA_TYPE *A_gpu, *B_gpu, *C_gpu;
	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * N * M);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * N * M);
	cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * N * N);
	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * N * M, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * N * M, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)ceil(((float)N) / ((float)DIM_THREAD_BLOCK_X)),
	          (size_t)ceil(((float)N) / ((float)DIM_THREAD_BLOCK_Y)));
	syr2k_sum_kernel<<<grid, block>>>(A_gpu, B_gpu, C_gpu);
	cudaDeviceSynchronize();
	cudaMemcpy(C_outputFromGpu, C_gpu, sizeof(DATA_TYPE) * N * N, cudaMemcpyDeviceToHost);

	syr2k_cpu(A, B, C);
	int fail = 0;
	for (int i = 0; i < N * N; i++)
		if (percentDiff(C[i], C_outputFromGpu[i]) > PERCENT_DIFF_ERROR_THRESHOLD)
			fail++;
	printf("Non-Matching CPU-GPU Outputs Beyond Error Threshold of %4.2f Percent: %d\n",
	       PERCENT_DIFF_ERROR_THRESHOLD, fail);

	cudaFree(A_gpu); cudaFree(B_gpu); cudaFree(C_gpu);
	free(A); free(B); free(C); free(C_outputFromGpu);
	return 0;
}
