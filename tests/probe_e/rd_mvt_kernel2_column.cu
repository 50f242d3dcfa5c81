// style: PolyBench/GPU 1.0 mvt.cu mvt_kernel2 (x2 += A^T * y2, thread i walks column i, accumulates in global), host main
// launch: grid cdiv(433, 256) block 256
// sizes:
// kernel: mvt_kernel2
// expect: column
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 433
#define DIM_THREAD_BLOCK_X 256
#define DIM_THREAD_BLOCK_Y 1

typedef float DATA_TYPE;

__global__ void mvt_kernel1(DATA_TYPE *a, DATA_TYPE *x1, DATA_TYPE *y_1)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N)
	{
		int j;
		for(j=0; j < N; j++)
		{
			x1[i] += a[i * N + j] * y_1[j];
		}
	}
}

__global__ void mvt_kernel2(DATA_TYPE *a, DATA_TYPE *x2, DATA_TYPE *y_2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N)
	{
		int j;
		for(j=0; j < N; j++)
		{
			x2[i] += a[j * N + i] * y_2[j];
		}
	}
}

int main()
{
	DATA_TYPE *a = (DATA_TYPE*)malloc(N*N*sizeof(DATA_TYPE));
	DATA_TYPE *x1 = (DATA_TYPE*)malloc(N*sizeof(DATA_TYPE));
	DATA_TYPE *x2 = (DATA_TYPE*)malloc(N*sizeof(DATA_TYPE));
	DATA_TYPE *y_1 = (DATA_TYPE*)malloc(N*sizeof(DATA_TYPE));
	DATA_TYPE *y_2 = (DATA_TYPE*)malloc(N*sizeof(DATA_TYPE));
	for (int i = 0; i < N; i++) {
		x1[i] = 0.0; x2[i] = 0.0;
		y_1[i] = ((DATA_TYPE) i) / N; y_2[i] = ((DATA_TYPE) i + 1) / N;
		for (int j = 0; j < N; j++) a[i*N + j] = ((DATA_TYPE) i*j) / N;
	}
	DATA_TYPE *a_gpu, *x1_gpu, *x2_gpu, *y_1_gpu, *y_2_gpu;
	cudaMalloc((void **)&a_gpu, sizeof(DATA_TYPE) * N * N);
	cudaMalloc((void **)&x1_gpu, sizeof(DATA_TYPE) * N);
	cudaMalloc((void **)&x2_gpu, sizeof(DATA_TYPE) * N);
	cudaMalloc((void **)&y_1_gpu, sizeof(DATA_TYPE) * N);
	cudaMalloc((void **)&y_2_gpu, sizeof(DATA_TYPE) * N);
	cudaMemcpy(a_gpu, a, sizeof(DATA_TYPE) * N * N, cudaMemcpyHostToDevice);
	cudaMemcpy(x1_gpu, x1, sizeof(DATA_TYPE) * N, cudaMemcpyHostToDevice);
	cudaMemcpy(x2_gpu, x2, sizeof(DATA_TYPE) * N, cudaMemcpyHostToDevice);
	cudaMemcpy(y_1_gpu, y_1, sizeof(DATA_TYPE) * N, cudaMemcpyHostToDevice);
	cudaMemcpy(y_2_gpu, y_2, sizeof(DATA_TYPE) * N, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)ceil((float)N/ ((float)DIM_THREAD_BLOCK_X)), 1);
	mvt_kernel1<<<grid,block>>>(a_gpu, x1_gpu, y_1_gpu);
	mvt_kernel2<<<grid,block>>>(a_gpu, x2_gpu, y_2_gpu);
	cudaDeviceSynchronize();
	cudaMemcpy(x2, x2_gpu, sizeof(DATA_TYPE) * N, cudaMemcpyDeviceToHost);
	printf("%f\n", x2[0]);
	cudaFree(a_gpu); cudaFree(x1_gpu); cudaFree(x2_gpu); cudaFree(y_1_gpu); cudaFree(y_2_gpu);
	free(a); free(x1); free(x2); free(y_1); free(y_2);
	return 0;
}
