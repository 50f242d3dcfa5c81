// style: Parboil stencil spelling - c0/c1 scalars first, A0/Anext, unparenthesised Index3D(_nx,_ny,_i,_j,_k) macro, thread coordinates offset by +1 so only the interior is touched, and each thread marches k through the whole z extent in a loop (no blockIdx.z); boundary planes are left as they were in Anext
// launch: grid cdiv(nx-2, 32), cdiv(ny-2, 4) block 32, 4
// sizes: c0=0.1667 c1=0.0278 nx=35 ny=27 nz=19
// expect: stencil-tile|stencil-window|stencil-march
#include <cuda_runtime.h>

#define Index3D(_nx,_ny,_i,_j,_k) ((_i)+_nx*((_j)+_ny*(_k)))

__global__ void block2D_naive_march(float c0,float c1,float *A0,float *Anext, int nx, int ny, int nz)
{
	int i = blockIdx.x*blockDim.x+threadIdx.x+1;
	int j = blockIdx.y*blockDim.y+threadIdx.y+1;

	if( i<nx-1 && j<ny-1 )
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
