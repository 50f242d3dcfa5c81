// style: PolyBench/GPU-style port of PolyBench 4 heat-3d - typedef'd DATA_TYPE double, SCALAR_VAL() literals, slowest index i from blockIdx.z/threadIdx.z and fastest k from x, A[i*n*n + j*n + k] flattening, one combined lower-and-upper interior test, two kernels (A->B then B->A) alternated by a host tsteps loop; host main with CPU check
// kernel: heat3D_kernel1
// launch: grid cdiv(n, 32), cdiv(n, 4), cdiv(n, 2) block 32, 4, 2
// sizes: n=29
// expect: stencil-tile|stencil-window|stencil-march
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

/* Problem size */
#define N 29
#define TSTEPS 10

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 4
#define DIM_THREAD_BLOCK_Z 2

#define PERCENT_DIFF_ERROR_THRESHOLD 0.05

typedef double DATA_TYPE;
#define SCALAR_VAL(x) x

__global__ void heat3D_kernel1(DATA_TYPE *A, DATA_TYPE *B, int n)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	int j = blockIdx.y * blockDim.y + threadIdx.y;
	int i = blockIdx.z * blockDim.z + threadIdx.z;

	if ((i >= 1) && (i < (n-1)) && (j >= 1) && (j < (n-1)) && (k >= 1) && (k < (n-1)))
	{
		B[i*n*n + j*n + k] =   SCALAR_VAL(0.125) * (A[(i+1)*n*n + j*n + k] - SCALAR_VAL(2.0) * A[i*n*n + j*n + k] + A[(i-1)*n*n + j*n + k])
		                     + SCALAR_VAL(0.125) * (A[i*n*n + (j+1)*n + k] - SCALAR_VAL(2.0) * A[i*n*n + j*n + k] + A[i*n*n + (j-1)*n + k])
		                     + SCALAR_VAL(0.125) * (A[i*n*n + j*n + (k+1)] - SCALAR_VAL(2.0) * A[i*n*n + j*n + k] + A[i*n*n + j*n + (k-1)])
		                     + A[i*n*n + j*n + k];
	}
}

__global__ void heat3D_kernel2(DATA_TYPE *A, DATA_TYPE *B, int n)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	int j = blockIdx.y * blockDim.y + threadIdx.y;
	int i = blockIdx.z * blockDim.z + threadIdx.z;

	if ((i >= 1) && (i < (n-1)) && (j >= 1) && (j < (n-1)) && (k >= 1) && (k < (n-1)))
	{
		A[i*n*n + j*n + k] =   SCALAR_VAL(0.125) * (B[(i+1)*n*n + j*n + k] - SCALAR_VAL(2.0) * B[i*n*n + j*n + k] + B[(i-1)*n*n + j*n + k])
		                     + SCALAR_VAL(0.125) * (B[i*n*n + (j+1)*n + k] - SCALAR_VAL(2.0) * B[i*n*n + j*n + k] + B[i*n*n + (j-1)*n + k])
		                     + SCALAR_VAL(0.125) * (B[i*n*n + j*n + (k+1)] - SCALAR_VAL(2.0) * B[i*n*n + j*n + k] + B[i*n*n + j*n + (k-1)])
		                     + B[i*n*n + j*n + k];
	}
}

void init_array(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int i, j, k;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			for (k = 0; k < n; k++)
				A[i*n*n + j*n + k] = B[i*n*n + j*n + k] = (DATA_TYPE) (i + j + (n-k)) * 10 / (n);
}

void heat3D(int tsteps, int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int t, i, j, k;
	for (t = 1; t <= tsteps; t++) {
		for (i = 1; i < n-1; i++)
			for (j = 1; j < n-1; j++)
				for (k = 1; k < n-1; k++)
					B[i*n*n + j*n + k] =   SCALAR_VAL(0.125) * (A[(i+1)*n*n + j*n + k] - SCALAR_VAL(2.0) * A[i*n*n + j*n + k] + A[(i-1)*n*n + j*n + k])
					                     + SCALAR_VAL(0.125) * (A[i*n*n + (j+1)*n + k] - SCALAR_VAL(2.0) * A[i*n*n + j*n + k] + A[i*n*n + (j-1)*n + k])
					                     + SCALAR_VAL(0.125) * (A[i*n*n + j*n + (k+1)] - SCALAR_VAL(2.0) * A[i*n*n + j*n + k] + A[i*n*n + j*n + (k-1)])
					                     + A[i*n*n + j*n + k];
		for (i = 1; i < n-1; i++)
			for (j = 1; j < n-1; j++)
				for (k = 1; k < n-1; k++)
					A[i*n*n + j*n + k] =   SCALAR_VAL(0.125) * (B[(i+1)*n*n + j*n + k] - SCALAR_VAL(2.0) * B[i*n*n + j*n + k] + B[(i-1)*n*n + j*n + k])
					                     + SCALAR_VAL(0.125) * (B[i*n*n + (j+1)*n + k] - SCALAR_VAL(2.0) * B[i*n*n + j*n + k] + B[i*n*n + (j-1)*n + k])
					                     + SCALAR_VAL(0.125) * (B[i*n*n + j*n + (k+1)] - SCALAR_VAL(2.0) * B[i*n*n + j*n + k] + B[i*n*n + j*n + (k-1)])
					                     + B[i*n*n + j*n + k];
	}
}

void heat3DCuda(int tsteps, int n, DATA_TYPE* A, DATA_TYPE* B, DATA_TYPE* A_outputFromGpu)
{
	DATA_TYPE *A_gpu, *B_gpu;
	size_t bytes = sizeof(DATA_TYPE) * n * n * n;

	cudaMalloc((void **)&A_gpu, bytes);
	cudaMalloc((void **)&B_gpu, bytes);
	cudaMemcpy(A_gpu, A, bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, bytes, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y, DIM_THREAD_BLOCK_Z);
	dim3 grid((size_t)ceil(((float)n) / ((float)block.x)),
	          (size_t)ceil(((float)n) / ((float)block.y)),
	          (size_t)ceil(((float)n) / ((float)block.z)));

	for (int t = 1; t <= tsteps; t++)
	{
		heat3D_kernel1<<<grid, block>>>(A_gpu, B_gpu, n);
		heat3D_kernel2<<<grid, block>>>(A_gpu, B_gpu, n);
	}
	cudaDeviceSynchronize();

	cudaMemcpy(A_outputFromGpu, A_gpu, bytes, cudaMemcpyDeviceToHost);
	cudaFree(A_gpu);
	cudaFree(B_gpu);
}

static double percentDiff(double val1, double val2)
{
	if ((fabs(val1) < 0.01) && (fabs(val2) < 0.01))
		return 0.0;
	return 100.0 * fabs(fabs(val1 - val2) / fabs(val1 + 0.00000001));
}

int main(int argc, char** argv)
{
	int n = N;
	int tsteps = TSTEPS;
	size_t cnt = (size_t)n * n * n;

	DATA_TYPE* A = (DATA_TYPE*)malloc(cnt * sizeof(DATA_TYPE));
	DATA_TYPE* B = (DATA_TYPE*)malloc(cnt * sizeof(DATA_TYPE));
	DATA_TYPE* A_outputFromGpu = (DATA_TYPE*)malloc(cnt * sizeof(DATA_TYPE));

	init_array(n, A, B);
	heat3DCuda(tsteps, n, A, B, A_outputFromGpu);
	heat3D(tsteps, n, A, B);

	int fail = 0;
	for (size_t q = 0; q < cnt; q++)
		if (percentDiff(A[q], A_outputFromGpu[q]) > PERCENT_DIFF_ERROR_THRESHOLD) fail++;
	printf("Non-Matching CPU-GPU Outputs Beyond Error Threshold of %4.2f Percent: %d\n",
	       PERCENT_DIFF_ERROR_THRESHOLD, fail);

	free(A); free(B); free(A_outputFromGpu);
	return fail != 0;
}
