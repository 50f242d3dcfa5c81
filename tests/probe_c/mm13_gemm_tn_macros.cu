// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=640 N=720 K=350
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// C = A^T * B with A stored K x M (transposed operand), indexing through an IDX2R macro (cuBLAS-example style reference kernel)
#define IDX2R(i, j, ld) (((i) * (ld)) + (j))

// A is K x M (row-major), B is K x N (row-major), C is M x N (row-major)
__global__ void gemm_tn_kernel(const float *A, const float *B, float *C,
                               int M, int N, int K)
{
    unsigned int n = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int m = blockIdx.y * blockDim.y + threadIdx.y;

    if (m < M && n < N) {
        float s = 0.f;
        for (int k = 0; k < K; k++)
            s += A[IDX2R(k, m, M)] * B[IDX2R(k, n, N)];
        C[IDX2R(m, n, N)] = s;
    }
}
