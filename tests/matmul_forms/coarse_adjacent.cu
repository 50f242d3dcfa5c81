// two adjacent outputs per thread (thread coarsening), the second under a bool guard
__global__ void matmul_coarse2(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = 2 * (blockIdx.x * blockDim.x + threadIdx.x);

    if (row >= M || col >= N) return;

    float sum0 = 0.0f, sum1 = 0.0f;
    bool has2 = (col + 1) < N;
    for (int k = 0; k < K; ++k) {
        float a = A[row * K + k];
        sum0 += a * B[k * N + col];
        if (has2) sum1 += a * B[k * N + col + 1];
    }
    C[row * N + col] = sum0;
    if (has2) C[row * N + col + 1] = sum1;
}
