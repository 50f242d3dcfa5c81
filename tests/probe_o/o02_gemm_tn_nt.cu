// style: Darknet-style gemm_tn/gemm_nt pair; flat 1-D id built from a 2-D-capable grid (blockIdx.y*gridDim.x), i/j recovered by div/mod
// launch: grid cdiv(M*N, 512) block 512
// sizes: M=53 N=97 K=71 ALPHA=0.75 lda=53 ldb=97 ldc=97
// kernel: gemm_tn_kernel
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce

// C += ALPHA * A^T * B   (A is K x M, row-major with leading dim lda)
__global__ void gemm_tn_kernel(int M, int N, int K, float ALPHA,
                               float *A, int lda,
                               float *B, int ldb,
                               float *C, int ldc)
{
    int id = (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x + threadIdx.x;
    if (id >= M * N) return;
    int i = id / N;
    int j = id % N;
    for (int k = 0; k < K; ++k) {
        float A_PART = ALPHA * A[k * lda + i];
        C[i * ldc + j] += A_PART * B[k * ldb + j];
    }
}

// C += ALPHA * A * B^T   (B is N x K, row-major with leading dim ldb)
__global__ void gemm_nt_kernel(int M, int N, int K, float ALPHA,
                               float *A, int lda,
                               float *B, int ldb,
                               float *C, int ldc)
{
    int id = (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x + threadIdx.x;
    if (id >= M * N) return;
    int i = id / N;
    int j = id - i * N;
    float sum = 0;
    for (int k = 0; k < K; ++k) {
        sum += ALPHA * A[i * lda + k] * B[j * ldb + k];
    }
    C[i * ldc + j] += sum;
}
