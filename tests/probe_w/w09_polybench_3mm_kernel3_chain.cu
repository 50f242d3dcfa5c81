// style: PolyBench/ACC CUDA 3mm with DATA_TYPE typedef, _PB_NI-style loop-bound macros mapping to the ni..nm parameters, DIM_THREAD_BLOCK_X/Y 32x8; three chained products E=A.B, F=C.D, G=E.F and the target is mm3_kernel3 which consumes both temporaries, zeroing G[i][j] and accumulating into it in global memory
// kernel: mm3_kernel3
// launch: grid cdiv(nl, 32), cdiv(ni, 8) block 32, 8
// sizes: ni=45 nj=57 nk=39 nl=71 nm=51
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

/* Can switch DATA_TYPE between float and double */
typedef float DATA_TYPE;

#define POLYBENCH_LOOP_BOUND(x,y) y
#define _PB_NI POLYBENCH_LOOP_BOUND(NI,ni)
#define _PB_NJ POLYBENCH_LOOP_BOUND(NJ,nj)
#define _PB_NK POLYBENCH_LOOP_BOUND(NK,nk)
#define _PB_NL POLYBENCH_LOOP_BOUND(NL,nl)
#define _PB_NM POLYBENCH_LOOP_BOUND(NM,nm)


/* E := A*B */
__global__ void mm3_kernel1(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *E)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NI) && (j < _PB_NJ))
	{
		E[i * _PB_NJ + j] = 0;
		int k;
		for(k=0; k < _PB_NK; k++)
		{
			E[i * _PB_NJ + j] += A[i * _PB_NK + k] * B[k * _PB_NJ + j];
		}
	}
}

/* F := C*D */
__global__ void mm3_kernel2(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *C, DATA_TYPE *D, DATA_TYPE *F)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NJ) && (j < _PB_NL))
	{
		F[i * _PB_NL + j] = 0;
		int k;
		for(k=0; k < _PB_NM; k++)
		{
			F[i * _PB_NL + j] += C[i * _PB_NM + k] * D[k * _PB_NL +j];
		}
	}
}

/* G := E*F */
__global__ void mm3_kernel3(int ni, int nj, int nk, int nl, int nm, DATA_TYPE *E, DATA_TYPE *F, DATA_TYPE *G)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < _PB_NI) && (j < _PB_NL))
	{
		G[i * _PB_NL + j] = 0;
		int k;
		for(k=0; k < _PB_NJ; k++)
		{
			G[i * _PB_NL + j] += E[i * _PB_NJ + k] * F[k * _PB_NL + j];
		}
	}
}

void mm3Cuda(int ni, int nj, int nk, int nl, int nm,
	DATA_TYPE *A_gpu, DATA_TYPE *B_gpu, DATA_TYPE *C_gpu, DATA_TYPE *D_gpu,
	DATA_TYPE *E_gpu, DATA_TYPE *F_gpu, DATA_TYPE *G_gpu)
{
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
}
