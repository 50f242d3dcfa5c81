// style: cuBLAS-doc column-major SGEMM with IDX2C macro and leading dimensions; i (row) on threadIdx.x, which is contiguous in column-major
// launch: grid cdiv(M, 32), cdiv(N, 8) block 32, 8
// sizes: M=187 N=141 K=223 lda=187 ldb=223 ldc=187 alpha=1.25 beta=-0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#define IDX2C(i,j,ld) (((j)*(ld))+(i))

// C = alpha * op(A) * op(B) + beta * C, op = N, column-major storage
__global__ void sgemm_nn_colmajor(int M, int N, int K, float alpha,
                                  const float *A, int lda,
                                  const float *B, int ldb,
                                  float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // row of C
    int j = blockIdx.y * blockDim.y + threadIdx.y;   // column of C
    if (i >= M || j >= N) return;

    float sum = 0.0f;
    for (int l = 0; l < K; l++)
        sum += A[IDX2C(i, l, lda)] * B[IDX2C(l, j, ldb)];

    if (beta == 0.0f)
        C[IDX2C(i, j, ldc)] = alpha * sum;
    else
        C[IDX2C(i, j, ldc)] = alpha * sum + beta * C[IDX2C(i, j, ldc)];
}
