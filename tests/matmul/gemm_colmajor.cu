// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m n k
// reference: C = alpha * A @ B.T + beta * C (column-major)
// recognise: alpha, beta, rows x, columns y
__global__ void gemm_nt(int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc) {
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m && j < n) {
        float s = 0;
        for (int p = 0; p < k; ++p)
            s += A[i + p * lda] * B[j + p * ldb];
        C[i + j * ldc] = alpha * s + beta * C[i + j * ldc];
    }
}
