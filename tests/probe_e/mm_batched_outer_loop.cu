// style: StackOverflow-style batched matmul where each thread loops over the batch (2-D grid, batch loop in kernel)
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: batch=4 M=119 N=141 K=87
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
__global__ void bmm_loop_kernel(const float *A, const float *B, float *C, int batch, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    for (int b = 0; b < batch; b++) {
        float s = 0.0f;
        for (int k = 0; k < K; k++)
            s += A[b * M * K + row * K + k] * B[b * K * N + k * N + col];
        C[b * M * N + row * N + col] = s;
    }
}
