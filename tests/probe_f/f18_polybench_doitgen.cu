// style: PolyBench/GPU doitgen.cu doitgen_kernel1 (sum[r][q][p] = A[r][q][:] . C4[:][p], launched once per r)
// launch: grid cdiv(np, 32), cdiv(nq, 8) block 32, 8
// sizes: nr=5 nq=97 np=131 r=2
// kernel: doitgen_kernel1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void doitgen_kernel1(int nr, int nq, int np, DATA_TYPE *sum, DATA_TYPE *A, DATA_TYPE *C4, int r)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	int q = blockIdx.y * blockDim.y + threadIdx.y;

	if ((p < np) && (q < nq))
	{
		sum[r * (nq * np) + q * np + p] = (DATA_TYPE)0.0;

		for (int s = 0; s < np; s++)
		{
			sum[r * (nq * np) + q * np + p] = sum[r * (nq * np) + q * np + p] + A[r * (nq * np) + q * np + s] * C4[s * np + p];
		}
	}
}

__global__ void doitgen_kernel2(int nr, int nq, int np, DATA_TYPE *sum, DATA_TYPE *A, DATA_TYPE *C4, int r)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	int q = blockIdx.y * blockDim.y + threadIdx.y;

	if ((p < np) && (q < nq))
	{
		A[r * (nq * np) + q * np + p] = sum[r * (nq * np) + q * np + p];
	}
}

void doitgenCuda(int nr, int nq, int np, DATA_TYPE *A, DATA_TYPE *C4, DATA_TYPE *sumNew)
{
	DATA_TYPE *AGpu, *C4Gpu, *sumGpu;

	cudaMalloc(&AGpu, nr * nq * np * sizeof(DATA_TYPE));
	cudaMalloc(&C4Gpu, np * np * sizeof(DATA_TYPE));
	cudaMalloc(&sumGpu, nr * nq * np * sizeof(DATA_TYPE));

	cudaMemcpy(AGpu, A, nr * nq * np * sizeof(DATA_TYPE), cudaMemcpyHostToDevice);
	cudaMemcpy(C4Gpu, C4, np * np * sizeof(DATA_TYPE), cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid((unsigned int)ceil( ((float)np) / ((float)block.x) ), (unsigned int)ceil( ((float)nq) / ((float)block.y) ));

	for (int r = 0; r < nr; r++)
	{
		doitgen_kernel1 <<<grid, block>>> (nr, nq, np, sumGpu, AGpu, C4Gpu, r);
		cudaDeviceSynchronize();
		doitgen_kernel2 <<<grid, block>>> (nr, nq, np, sumGpu, AGpu, C4Gpu, r);
		cudaDeviceSynchronize();
	}

	cudaMemcpy(sumNew, sumGpu, nr * nq * np * sizeof(DATA_TYPE), cudaMemcpyDeviceToHost);
	cudaFree(AGpu); cudaFree(C4Gpu); cudaFree(sumGpu);
}

int main()
{
	int nr = 5, nq = 97, np = 131;
	DATA_TYPE *A = (DATA_TYPE*)malloc(nr*nq*np*sizeof(DATA_TYPE));
	DATA_TYPE *C4 = (DATA_TYPE*)malloc(np*np*sizeof(DATA_TYPE));
	DATA_TYPE *sum = (DATA_TYPE*)malloc(nr*nq*np*sizeof(DATA_TYPE));
	for (int i = 0; i < nr*nq*np; i++) A[i] = (DATA_TYPE)(i % 7) / np;
	for (int i = 0; i < np*np; i++) C4[i] = (DATA_TYPE)(i % 5) / np;
	doitgenCuda(nr, nq, np, A, C4, sum);
	printf("%f\n", sum[0]);
	free(A); free(C4); free(sum);
	return 0;
}
