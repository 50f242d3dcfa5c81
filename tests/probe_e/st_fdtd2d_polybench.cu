// style: PolyBench/GPU 1.0 fdtd2d.cu fdtd_step3_kernel (#define NX/NY, staggered ex/ey/hz grids), host time loop
// launch: grid cdiv(229, 32), cdiv(197, 8) block 32, 8
// sizes: t=3
// kernel: fdtd_step3_kernel
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* Problem size */
#define tmax 10
#define NX 197
#define NY 229

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void fdtd_step1_kernel(DATA_TYPE* _fict_, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NX) && (j < NY))
	{
		if (i == 0)
		{
			ey[i * NY + j] = _fict_[t];
		}
		else
		{
			ey[i * NY + j] = ey[i * NY + j] - 0.5f*(hz[i * NY + j] - hz[(i-1) * NY + j]);
		}
	}
}

__global__ void fdtd_step2_kernel(DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NX) && (j < NY) && (j > 0))
	{
		ex[i * (NY+1) + j] = ex[i * (NY+1) + j] - 0.5f*(hz[i * NY + j] - hz[i * NY + (j-1)]);
	}
}

__global__ void fdtd_step3_kernel(DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;

	if ((i < NX) && (j < NY))
	{
		hz[i * NY + j] = hz[i * NY + j] - 0.7f*(ex[i * (NY+1) + (j+1)] - ex[i * (NY+1) + j] + ey[(i + 1) * NY + j] - ey[i * NY + j]);
	}
}

int main()
{
	DATA_TYPE *_fict_ = (DATA_TYPE*)malloc(tmax*sizeof(DATA_TYPE));
	DATA_TYPE *ex = (DATA_TYPE*)malloc(NX*(NY+1)*sizeof(DATA_TYPE));
	DATA_TYPE *ey = (DATA_TYPE*)malloc((NX+1)*NY*sizeof(DATA_TYPE));
	DATA_TYPE *hz = (DATA_TYPE*)malloc(NX*NY*sizeof(DATA_TYPE));
	for (int i = 0; i < tmax; i++) _fict_[i] = (DATA_TYPE) i;
	for (int i = 0; i < NX*(NY+1); i++) ex[i] = (DATA_TYPE)(i % 7) / NX;
	for (int i = 0; i < (NX+1)*NY; i++) ey[i] = (DATA_TYPE)(i % 5) / NY;
	for (int i = 0; i < NX*NY; i++) hz[i] = (DATA_TYPE)(i % 3) / NX;

	DATA_TYPE *fict_gpu, *ex_gpu, *ey_gpu, *hz_gpu;
	cudaMalloc((void **)&fict_gpu, sizeof(DATA_TYPE) * tmax);
	cudaMalloc((void **)&ex_gpu, sizeof(DATA_TYPE) * NX * (NY + 1));
	cudaMalloc((void **)&ey_gpu, sizeof(DATA_TYPE) * (NX + 1) * NY);
	cudaMalloc((void **)&hz_gpu, sizeof(DATA_TYPE) * NX * NY);
	cudaMemcpy(fict_gpu, _fict_, sizeof(DATA_TYPE) * tmax, cudaMemcpyHostToDevice);
	cudaMemcpy(ex_gpu, ex, sizeof(DATA_TYPE) * NX * (NY + 1), cudaMemcpyHostToDevice);
	cudaMemcpy(ey_gpu, ey, sizeof(DATA_TYPE) * (NX + 1) * NY, cudaMemcpyHostToDevice);
	cudaMemcpy(hz_gpu, hz, sizeof(DATA_TYPE) * NX * NY, cudaMemcpyHostToDevice);

	dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
	dim3 grid( (size_t)ceil(((float)NY) / ((float)block.x)), (size_t)ceil(((float)NX) / ((float)block.y)));

	for(int t = 0; t< tmax; t++)
	{
		fdtd_step1_kernel<<<grid,block>>>(fict_gpu, ex_gpu, ey_gpu, hz_gpu, t);
		cudaDeviceSynchronize();
		fdtd_step2_kernel<<<grid,block>>>(ex_gpu, ey_gpu, hz_gpu, t);
		cudaDeviceSynchronize();
		fdtd_step3_kernel<<<grid,block>>>(ex_gpu, ey_gpu, hz_gpu, t);
		cudaDeviceSynchronize();
	}
	cudaMemcpy(hz, hz_gpu, sizeof(DATA_TYPE) * NX * NY, cudaMemcpyDeviceToHost);
	cudaFree(fict_gpu); cudaFree(ex_gpu); cudaFree(ey_gpu); cudaFree(hz_gpu);
	free(_fict_); free(ex); free(ey); free(hz);
	return 0;
}
