// style: PolyBench/GPU BiCG spelling - DIM_THREAD_BLOCK_X 256, DATA_TYPE typedef, `int i;` declared before the loop, s[j] zeroed with 0.0f and then accumulated directly in global memory (s[j] += A[i * ny + j] * r[i]), NX/NY turned into nx/ny parameters; the second kernel is the row product q[i] += A[i * ny + j] * p[j]
// kernel: bicg_kernel1
// launch: grid cdiv(ny, 256) block 256
// sizes: nx=87 ny=69
// expect: column
#include <cuda_runtime.h>

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 256
#define DIM_THREAD_BLOCK_Y 1

typedef float DATA_TYPE;

//Distributed (split) from initial loop and permuted into reverse order to allow parallelism...
__global__ void bicg_kernel1(DATA_TYPE *A, DATA_TYPE *r, DATA_TYPE *s, int nx, int ny)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < ny)
	{
		s[j] = 0.0f;

		int i;
		for(i = 0; i < nx; i++)
		{
			s[j] += A[i * ny + j] * r[i];
		}
	}
}

//Distributed (split) from initial loop to allow parallelism
__global__ void bicg_kernel2(DATA_TYPE *A, DATA_TYPE *p, DATA_TYPE *q, int nx, int ny)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < nx)
	{
		q[i] = 0.0f;

		int j;
		for(j=0; j < ny; j++)
		{
			q[i] += A[i * ny + j] * p[j];
		}
	}
}

void bicgCuda(DATA_TYPE* A_gpu, DATA_TYPE* r_gpu, DATA_TYPE* s_gpu, DATA_TYPE* p_gpu, DATA_TYPE* q_gpu,
              int nx, int ny)
{
	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid1((ny + DIM_THREAD_BLOCK_X - 1) / DIM_THREAD_BLOCK_X, 1);
	dim3 grid2((nx + DIM_THREAD_BLOCK_X - 1) / DIM_THREAD_BLOCK_X, 1);

	bicg_kernel1<<< grid1, block >>>(A_gpu, r_gpu, s_gpu, nx, ny);
	cudaDeviceSynchronize();
	bicg_kernel2<<< grid2, block >>>(A_gpu, p_gpu, q_gpu, nx, ny);
	cudaDeviceSynchronize();
}
