// launch: grid M block N
// sizes: M N K
// reference: C = A @ B
// recognise: rows block x, columns x
#define IDX(i, j, ld) ((i) * (ld) + (j))
__global__ void sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                      int M, int N, int K, int lda, int ldb, int ldc) {
    int row = blockIdx.x;
    int col = threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.f;
        #pragma unroll 4
        for (int k = 0; k < K; ++k) {
            acc += A[IDX(row, k, lda)] * B[IDX(k, col, ldb)];
        }
        C[IDX(row, col, ldc)] = acc;
    }
}
