// launch: grid cdiv(m, 16), cdiv(m, 16) block 16, 16
// sizes: n=600 m=180
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// Covariance C = X^T X / (n-1) of a mean-centred n x m data matrix (PolyBench covariance, 2-D thread-per-entry version)
#include <cuda_runtime.h>

typedef float DATA_TYPE;

__global__ void covariance_xtx(const DATA_TYPE *data, DATA_TYPE *symmat, int n, int m)
{
	int j2 = blockIdx.x * blockDim.x + threadIdx.x;
	int j1 = blockIdx.y * blockDim.y + threadIdx.y;

	if ((j1 < m) && (j2 < m))
	{
		DATA_TYPE acc = 0.0f;
		for (int i = 0; i < n; i++)
		{
			acc += data[i * m + j1] * data[i * m + j2];
		}
		symmat[j1 * m + j2] = acc / (DATA_TYPE)(n - 1);
	}
}

void covariance_gpu(const DATA_TYPE *d_data, DATA_TYPE *d_symmat, int n, int m)
{
	dim3 block(16, 16);
	dim3 grid((size_t)ceil(((float)m) / ((float)block.x)), (size_t)ceil(((float)m) / ((float)block.y)));
	covariance_xtx<<<grid, block>>>(d_data, d_symmat, n, m);
	cudaDeviceSynchronize();
}
