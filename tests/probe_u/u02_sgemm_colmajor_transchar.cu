// style: reference-BLAS SGEMM ported to a CUDA kernel for testing a library (column-major, lda/ldb/ldc, char transa/transb decoded LSAME-style into bools inside the kernel, alpha/beta with a beta==0 branch that never reads C)
// launch: grid cdiv(m, 16), cdiv(n, 16) block 16, 16
// sizes: m=67 n=93 k=45 lda=67 ldb=93 ldc=67 transa=78 transb=84 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// C := alpha*op(A)*op(B) + beta*C, column-major storage
//   op(A) is m x k, op(B) is k x n, C is m x n
__global__ void sgemm_ref_kernel(char transa, char transb,
                                 int m, int n, int k,
                                 float alpha,
                                 const float *A, int lda,
                                 const float *B, int ldb,
                                 float beta,
                                 float *C, int ldc)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;   // row of C
    const int j = blockIdx.y * blockDim.y + threadIdx.y;   // column of C
    if (i >= m || j >= n)
        return;

    const bool nota = !(transa == 'T' || transa == 't' || transa == 'C' || transa == 'c');
    const bool notb = !(transb == 'T' || transb == 't' || transb == 'C' || transb == 'c');

    float temp = 0.0f;
    for (int l = 0; l < k; ++l) {
        float a = nota ? A[i + (size_t)l * lda] : A[l + (size_t)i * lda];
        float b = notb ? B[l + (size_t)j * ldb] : B[j + (size_t)l * ldb];
        temp += a * b;
    }

    if (beta == 0.0f)
        C[i + (size_t)j * ldc] = alpha * temp;
    else
        C[i + (size_t)j * ldc] = alpha * temp + beta * C[i + (size_t)j * ldc];
}

extern "C" void sgemm_ref(char transa, char transb, int m, int n, int k,
                          float alpha, const float *A, int lda,
                          const float *B, int ldb, float beta,
                          float *C, int ldc, cudaStream_t stream)
{
    dim3 block(16, 16);
    dim3 grid((m + 15) / 16, (n + 15) / 16);
    sgemm_ref_kernel<<<grid, block, 0, stream>>>(transa, transb, m, n, k, alpha,
                                                 A, lda, B, ldb, beta, C, ldc);
}
