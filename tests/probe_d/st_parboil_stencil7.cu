// launch: grid cdiv(nx, 32), cdiv(ny, 4) block 32, 4
// sizes: c0=0.1666 c1=0.1 nx=66 ny=58 nz=40
// expect: stencil-march|stencil-tile
// Parboil "stencil" 7-point Jacobi, naive GPU version: each thread owns an (i,j) column and loops over k
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define Index3D(_nx,_ny,_i,_j,_k) ((_i)+_nx*((_j)+_ny*(_k)))

__global__ void naive_kernel(float c0,float c1,float *A0,float *Anext, int nx, int ny, int nz)
{
	int i = blockIdx.x*blockDim.x+threadIdx.x;
	int j = blockIdx.y*blockDim.y+threadIdx.y;

	if( i>0 && j>0 && (i<nx-1) && (j<ny-1) )
	{
		for(int k=1;k<nz-1;k++)
		{
			Anext[Index3D (nx, ny, i, j, k)] =
			(A0[Index3D (nx, ny, i, j, k + 1)] +
			 A0[Index3D (nx, ny, i, j, k - 1)] +
			 A0[Index3D (nx, ny, i, j + 1, k)] +
			 A0[Index3D (nx, ny, i, j - 1, k)] +
			 A0[Index3D (nx, ny, i + 1, j, k)] +
			 A0[Index3D (nx, ny, i - 1, j, k)])*c1
			- A0[Index3D (nx, ny, i, j, k)]*c0;
		}
	}
}

int main(int argc, char** argv) {
	int nx = 66, ny = 58, nz = 40;
	int iteration = argc > 1 ? atoi(argv[1]) : 4;
	float c0 = 1.0f / 6.0f;
	float c1 = 1.0f / 6.0f / 6.0f;
	size_t size = nx * ny * nz;

	float *h_A0 = (float*)malloc(sizeof(float) * size);
	for (size_t t = 0; t < size; t++) h_A0[t] = (float)(t % 17);

	float *d_A0, *d_Anext;
	cudaMalloc((void **)&d_A0, size * sizeof(float));
	cudaMalloc((void **)&d_Anext, size * sizeof(float));
	cudaMemcpy(d_A0, h_A0, size * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(d_Anext, d_A0, size * sizeof(float), cudaMemcpyDeviceToDevice);

	int tx = 32, ty = 4;
	dim3 block(tx, ty, 1);
	dim3 grid((nx + tx - 1) / tx, (ny + ty - 1) / ty, 1);

	for (int t = 0; t < iteration; t++) {
		naive_kernel<<<grid, block>>>(c0, c1, d_A0, d_Anext, nx, ny, nz);
		float *d_temp = d_A0;
		d_A0 = d_Anext;
		d_Anext = d_temp;
	}
	cudaMemcpy(h_A0, d_Anext, size * sizeof(float), cudaMemcpyDeviceToHost);
	printf("%f\n", h_A0[Index3D(nx, ny, 1, 1, 1)]);
	cudaFree(d_A0); cudaFree(d_Anext); free(h_A0);
	return 0;
}
