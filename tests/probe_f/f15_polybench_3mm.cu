// style: PolyBench/GPU 3mm.cu (E = A*B, F = C*D, G = E*F); probing mm3_kernel3
// launch: grid cdiv(nl, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=131 nj=157 nk=109 nl=181 nm=143
// kernel: mm3_kernel3
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda.h>

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void mm3_kernel1(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *E)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < ni) && (j < nj))
	{
		E[i * nj + j] = 0;
		int k;
		for(k=0; k < nk; k++)
		{
			E[i * nj + j] += A[i * nk + k] * B[k * nj + j];
		}
	}
}

__global__ void mm3_kernel2(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *C, DATA_TYPE *D, DATA_TYPE *F)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < nj) && (j < nl))
	{
		F[i * nl + j] = 0;
		int k;
		for(k=0; k < nm; k++)
		{
			F[i * nl + j] += C[i * nm + k] * D[k * nl + j];
		}
	}
}

__global__ void mm3_kernel3(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *E, DATA_TYPE *F, DATA_TYPE *G)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < ni) && (j < nl))
	{
		G[i * nl + j] = 0;
		int k;
		for(k=0; k < nj; k++)
		{
			G[i * nl + j] += E[i * nj + k] * F[k * nl + j];
		}
	}
}

void mm3Cuda(int ni, int nj, int nk, int nl, int nm, DATA_TYPE* A, DATA_TYPE* B, DATA_TYPE* C, DATA_TYPE* D, DATA_TYPE* G_outputFromGpu)
{
	DATA_TYPE *A_gpu, *B_gpu, *C_gpu, *D_gpu, *E_gpu, *F_gpu, *G_gpu;

	cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * ni * nk);
	cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * nk * nj);
	cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * nj * nm);
	cudaMalloc((void **)&D_gpu, sizeof(DATA_TYPE) * nm * nl);
	cudaMalloc((void **)&E_gpu, sizeof(DATA_TYPE) * ni * nj);
	cudaMalloc((void **)&F_gpu, sizeof(DATA_TYPE) * nj * nl);
	cudaMalloc((void **)&G_gpu, sizeof(DATA_TYPE) * ni * nl);

	cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * ni * nk, cudaMemcpyHostToDevice);
	cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * nk * nj, cudaMemcpyHostToDevice);
	cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * nj * nm, cudaMemcpyHostToDevice);
	cudaMemcpy(D_gpu, D, sizeof(DATA_TYPE) * nm * nl, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid1((size_t)(ceil( ((float)nj) / ((float)DIM_THREAD_BLOCK_X) )),(size_t)(ceil((float)ni/ ((float)DIM_THREAD_BLOCK_Y) )));
	dim3 grid2((size_t)(ceil( ((float)nl) / ((float)DIM_THREAD_BLOCK_X) )),(size_t)(ceil((float)nj/ ((float)DIM_THREAD_BLOCK_Y) )));
	dim3 grid3((size_t)(ceil( ((float)nl) / ((float)DIM_THREAD_BLOCK_X) )),(size_t)(ceil((float)ni/ ((float)DIM_THREAD_BLOCK_Y) )));

	mm3_kernel1<<<grid1,block>>>(ni, nj, nk, nl, nm, A_gpu, B_gpu, E_gpu);
	cudaDeviceSynchronize();
	mm3_kernel2<<<grid2,block>>>(ni, nj, nk, nl, nm, C_gpu, D_gpu, F_gpu);
	cudaDeviceSynchronize();
	mm3_kernel3<<<grid3,block>>>(ni, nj, nk, nl, nm, E_gpu, F_gpu, G_gpu);
	cudaDeviceSynchronize();

	cudaMemcpy(G_outputFromGpu, G_gpu, sizeof(DATA_TYPE) * ni * nl, cudaMemcpyDeviceToHost);
	cudaFree(A_gpu); cudaFree(B_gpu); cudaFree(C_gpu); cudaFree(D_gpu);
	cudaFree(E_gpu); cudaFree(F_gpu); cudaFree(G_gpu);
}

int main()
{
	int ni = 131, nj = 157, nk = 109, nl = 181, nm = 143;
	DATA_TYPE *A = (DATA_TYPE*)calloc(ni*nk, sizeof(DATA_TYPE));
	DATA_TYPE *B = (DATA_TYPE*)calloc(nk*nj, sizeof(DATA_TYPE));
	DATA_TYPE *C = (DATA_TYPE*)calloc(nj*nm, sizeof(DATA_TYPE));
	DATA_TYPE *D = (DATA_TYPE*)calloc(nm*nl, sizeof(DATA_TYPE));
	DATA_TYPE *G = (DATA_TYPE*)calloc(ni*nl, sizeof(DATA_TYPE));
	mm3Cuda(ni, nj, nk, nl, nm, A, B, C, D, G);
	printf("%f\n", G[0]);
	free(A); free(B); free(C); free(D); free(G);
	return 0;
}
