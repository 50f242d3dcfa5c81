// style: course homework GEMM, BLAS-like signature with leading dims, C scaled then accumulated in global memory inside the k loop
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=187 N=141 K=223 alpha=1.5 beta=0.5 lda=223 ldb=141 ldc=141
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

/* CS 4xx Assignment 3, part 1: straightforward SGEMM
 * C := alpha * A * B + beta * C   (all row-major)
 */
__global__ void gemm_acc(int M, int N, int K, float alpha, const float *A, int lda,
                         const float *B, int ldb, float beta, float *C, int ldc)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;   /* column */
    int i = blockIdx.y * blockDim.y + threadIdx.y;   /* row    */

    if (i >= M || j >= N)
        return;

    C[i * ldc + j] *= beta;
    for (int k = 0; k < K; k++) {
        C[i * ldc + j] += alpha * A[i * lda + k] * B[k * ldb + j];
    }
}
