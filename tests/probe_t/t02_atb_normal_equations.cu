// style: least-squares / normal-equations solver code forming C = A^T * B; A stored row-major as K x M and read down its columns (A[k*M + i]), B row-major K x N, loop variable named p, output row i from blockIdx.y, no host code
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// C (M x N) = A^T (M x K) * B (K x N), where A is stored as K x M row-major.
__global__ void atb_kernel(const float *A, const float *B, float *C,
                           int M, int N, int K)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;   // column of A, row of C
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // column of B and C

    if (i < M && j < N) {
        float s = 0.0f;
        for (int p = 0; p < K; ++p)
            s += A[p * M + i] * B[p * N + j];
        C[i * N + j] = s;
    }
}
