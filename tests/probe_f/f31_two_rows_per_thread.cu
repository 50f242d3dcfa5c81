// style: naive matmul with 2x thread coarsening along rows (each thread computes C[row][col] and C[row + blockDim.y][col])
// launch: grid cdiv(N, 16), cdiv(M, 32) block 16, 16
// sizes: M=197 N=163 K=139
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
__global__ void matmul_coarse2(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row0 = blockIdx.y * (2 * blockDim.y) + threadIdx.y;
    int row1 = row0 + blockDim.y;
    if (col >= N) return;

    float sum0 = 0.0f, sum1 = 0.0f;
    for (int k = 0; k < K; ++k) {
        float b = B[k * N + col];
        if (row0 < M) sum0 += A[row0 * K + k] * b;
        if (row1 < M) sum1 += A[row1 * K + k] * b;
    }
    if (row0 < M) C[row0 * N + col] = sum0;
    if (row1 < M) C[row1 * N + col] = sum1;
}
