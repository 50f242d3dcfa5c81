// style: PolyBench/GPU (PolyBench-ACC CUDA) gemm.cu gemm_kernel, DIM_THREAD_BLOCK 32x8, C = alpha*A*B + beta*C
// launch: grid cdiv(nj, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=213 nj=189 nk=157 alpha=32412.0 beta=2123.0
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void gemm_kernel(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < ni) && (j < nj))
	{
		c[i * nj + j] *= beta;
		int k;
		for(k=0; k < nk; k++)
		{
			c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
		}
	}
}

void gemmCuda(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE* A, DATA_TYPE* B, DATA_TYPE* C, DATA_TYPE* C_outputFromGpu)
{
	DATA_TYPE *A_gpu;
	DATA_TYPE *B_gpu;
	DATA_TYPE *C_gpu;

	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * ni * nk);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * nk * nj);
	cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * ni * nj);

	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * ni * nk, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * nk * nj, cudaMemcpyHostToDevice);
	cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * ni * nj, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((size_t)(ceil( ((float)nj)/ ((float)block.x) )),(size_t)(ceil( ((float)ni)/ ((float)block.y) )));

	gemm_kernel<<< grid, block >>>(ni, nj, nk, alpha, beta, A_gpu, B_gpu, C_gpu);
	cudaDeviceSynchronize();

	cudaMemcpy(C_outputFromGpu, C_gpu, sizeof(DATA_TYPE) * ni * nj, cudaMemcpyDeviceToHost);

	cudaFree(A_gpu);
	cudaFree(B_gpu);
	cudaFree(C_gpu);
}

int main(int argc, char *argv[])
{
	int ni = 213, nj = 189, nk = 157;
	DATA_TYPE alpha = 32412, beta = 2123;
	DATA_TYPE *A = (DATA_TYPE*)malloc(ni*nk*sizeof(DATA_TYPE));
	DATA_TYPE *B = (DATA_TYPE*)malloc(nk*nj*sizeof(DATA_TYPE));
	DATA_TYPE *C = (DATA_TYPE*)malloc(ni*nj*sizeof(DATA_TYPE));
	DATA_TYPE *C_outputFromGpu = (DATA_TYPE*)malloc(ni*nj*sizeof(DATA_TYPE));
	for (int i = 0; i < ni; i++) for (int k = 0; k < nk; k++) A[i*nk + k] = ((DATA_TYPE) i*k) / ni;
	for (int k = 0; k < nk; k++) for (int j = 0; j < nj; j++) B[k*nj + j] = ((DATA_TYPE) k*j) / ni;
	for (int i = 0; i < ni; i++) for (int j = 0; j < nj; j++) C[i*nj + j] = ((DATA_TYPE) i*j) / ni;
	gemmCuda(ni, nj, nk, alpha, beta, A, B, C, C_outputFromGpu);
	printf("%f\n", C_outputFromGpu[0]);
	free(A); free(B); free(C); free(C_outputFromGpu);
	return 0;
}
