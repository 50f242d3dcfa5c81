// style: "modern C++" naive GEMM with __restrict__ row pointers, size_t indexing and explicit leading dimensions (row-major, padded)
// launch: grid cdiv(N, 32), cdiv(M, 4) block 32, 4
// sizes: M=187 N=141 K=223 lda=229 ldb=151 ldc=149 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library

// C[i*ldc + j] = alpha * sum_k A[i*lda + k] * B[k*ldb + j] + beta * C[i*ldc + j]
__global__ void gemm_rowptr_kernel(int M, int N, int K,
                                   float alpha,
                                   const float *__restrict__ A, int lda,
                                   const float *__restrict__ B, int ldb,
                                   float beta,
                                   float *__restrict__ C, int ldc)
{
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (size_t)M || col >= (size_t)N)
        return;

    const float *__restrict__ arow = A + (size_t)row * lda;
    const float *__restrict__ bcol = B + col;
    float *__restrict__ crow = C + (size_t)row * ldc;

    float acc = 0.0f;
    for (size_t k = 0; k < (size_t)K; ++k)
        acc += arow[k] * bcol[k * (size_t)ldb];

    crow[col] = alpha * acc + beta * crow[col];
}
