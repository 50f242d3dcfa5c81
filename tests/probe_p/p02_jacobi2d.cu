// style: PolyBench/GPU jacobi2D.cu kernel1; DATA_TYPE typedef, size parameter first, i taken from the y index, fully parenthesised interior guard, tab indentation
// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: n=259
// expect: stencil-tile|stencil-window

/* Default data type is float */
typedef float DATA_TYPE;

/* Thread block dimensions */
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

/* One Jacobi sweep: B <- 5-point average of A on the interior. */
__global__ void runJacobiCUDA_kernel1(int n, DATA_TYPE* A, DATA_TYPE* B)
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if ((i >= 1) && (i < (n-1)) && (j >= 1) && (j < (n-1)))
	{
		B[i*n + j] = 0.2f * (A[i*n + j] + A[i*n + (j-1)] + A[i*n + (1 + j)] + A[(1 + i)*n + j] + A[(i-1)*n + j]);
	}
}
