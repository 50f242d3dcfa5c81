// launch: grid cdiv(nj, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=900 nj=700
// expect: stencil-tile
// 3x3 convolution with literal coefficients and interior guard (PolyBench-ACC CUDA 2DCONV/2DConvolution.cu)
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

#define _PB_NI ni
#define _PB_NJ nj

__global__ void Convolution2D_kernel(int ni, int nj, DATA_TYPE *A, DATA_TYPE *B)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	DATA_TYPE c11, c12, c13, c21, c22, c23, c31, c32, c33;

	c11 = +0.2;  c21 = +0.5;  c31 = -0.8;
	c12 = -0.3;  c22 = +0.6;  c32 = -0.9;
	c13 = +0.4;  c23 = +0.7;  c33 = +0.10;

	if ((i < _PB_NI-1) && (j < _PB_NJ-1) && (i > 0) && (j > 0))
	{
		B[i * nj + j] =  c11 * A[(i - 1) * nj + (j - 1)]  + c21 * A[(i - 1) * nj + (j + 0)] + c31 * A[(i - 1) * nj + (j + 1)]
			+ c12 * A[(i + 0) * nj + (j - 1)]  + c22 * A[(i + 0) * nj + (j + 0)] +  c32 * A[(i + 0) * nj + (j + 1)]
			+ c13 * A[(i + 1) * nj + (j - 1)]  + c23 * A[(i + 1) * nj + (j + 0)] +  c33 * A[(i + 1) * nj + (j + 1)];
	}
}

void init_array(int ni, int nj, DATA_TYPE* A)
{
	int i, j;
	for (i = 0; i < ni; ++i)
		for (j = 0; j < nj; ++j)
			A[i * nj + j] = (float)rand()/RAND_MAX;
}

void convolution2DCuda(int ni, int nj, DATA_TYPE* A, DATA_TYPE* B_outputFromGpu)
{
	DATA_TYPE *A_gpu;
	DATA_TYPE *B_gpu;

	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * ni * nj);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * ni * nj);
	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * ni * nj, cudaMemcpyHostToDevice);
	cudaMemset(B_gpu, 0, sizeof(DATA_TYPE) * ni * nj);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)ceil( ((float)nj) / ((float)block.x) ), (size_t)ceil( ((float)ni) / ((float)block.y)) );

	Convolution2D_kernel <<< grid,block >>> (ni, nj, A_gpu, B_gpu);
	cudaDeviceSynchronize();

	cudaMemcpy(B_outputFromGpu, B_gpu, sizeof(DATA_TYPE) * ni * nj, cudaMemcpyDeviceToHost);

	cudaFree(A_gpu);
	cudaFree(B_gpu);
}

int main(int argc, char *argv[])
{
	int ni = 900;
	int nj = 700;

	DATA_TYPE* A = (DATA_TYPE*)malloc(ni * nj * sizeof(DATA_TYPE));
	DATA_TYPE* B_outputFromGpu = (DATA_TYPE*)malloc(ni * nj * sizeof(DATA_TYPE));

	init_array(ni, nj, A);
	convolution2DCuda(ni, nj, A, B_outputFromGpu);
	printf("B[1][1] = %f\n", B_outputFromGpu[nj + 1]);

	free(A);
	free(B_outputFromGpu);
	return 0;
}
