// style: cuBLAS-convention reference SGEMM (column-major, A[i + l*lda], leading dimensions lda/ldb/ldc), as in MAGMA/cuBLAS test harnesses
// launch: grid cdiv(m, 32), cdiv(n, 8) block 32, 8
// sizes: m=153 n=119 k=201 lda=157 ldb=203 ldc=155 alpha=1.25 beta=-0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
// C(m x n) = alpha * A(m x k) * B(k x n) + beta * C, all column-major
__global__ void sgemm_nn_ref(int m, int n, int k, float alpha,
                             const float *A, int lda,
                             const float *B, int ldb,
                             float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // row of C
    int j = blockIdx.y * blockDim.y + threadIdx.y;   // column of C
    if (i < m && j < n) {
        float sum = 0.0f;
        for (int l = 0; l < k; ++l) {
            sum += A[i + l * lda] * B[l + j * ldb];
        }
        C[i + j * ldc] = alpha * sum + beta * C[i + j * ldc];
    }
}
