// style: hand-written GEMM where transposes are picked at compile time by macros (TRANS_A/TRANS_B), alpha/beta epilogue
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=171 N=149 K=133 alpha=2.0 beta=1.0
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#define TRANS_A 1
#define TRANS_B 0

// A is M x K (or stored K x M when TRANS_A), B is K x N (or stored N x K when TRANS_B)
#if TRANS_A
#define A_AT(r, c) A[(c) * M + (r)]
#else
#define A_AT(r, c) A[(r) * K + (c)]
#endif

#if TRANS_B
#define B_AT(r, c) B[(c) * K + (r)]
#else
#define B_AT(r, c) B[(r) * N + (c)]
#endif

__global__ void gemm_kernel_macro(const float *A, const float *B, float *C,
                                  int M, int N, int K, float alpha, float beta)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A_AT(row, k) * B_AT(k, col);
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
    }
}
