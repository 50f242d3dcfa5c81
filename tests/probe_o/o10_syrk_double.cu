// style: PolyBench/GPU syrk (C = alpha*A*A^T + beta*C) with DATA_TYPE typedef'd to double, uppercase ALPHA/BETA, k declared outside loop
// launch: grid cdiv(n, 32), cdiv(n, 8) block 32, 8
// sizes: ALPHA=1.25 BETA=0.5 n=75 m=43
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce

typedef double DATA_TYPE;

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void syrk_kernel(DATA_TYPE ALPHA, DATA_TYPE BETA, DATA_TYPE *a, DATA_TYPE *c, int n, int m)
{
    /*  C := alpha*A*A' + beta*C  ,  A is n x m, C is n x n */
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if ((i < n) && (j < n))
    {
        c[i * n + j] *= BETA;
        int k;
        for (k = 0; k < m; k++)
        {
            c[i * n + j] += ALPHA * a[i * m + k] * a[j * m + k];
        }
    }
}
