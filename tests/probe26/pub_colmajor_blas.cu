// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=300 n=200 k=250 lda=300 ldb=250 ldc=300
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// BLAS-style column-major product with leading dimensions: C = A B, A m x k, B k x n
__global__ void sgemm_cm(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n) {
        float s = 0.0f;
        for (int l = 0; l < k; ++l) s += A[i + l * lda] * B[l + j * ldb];
        C[i + j * ldc] = s;
    }
}
