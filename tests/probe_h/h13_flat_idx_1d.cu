// style: 1-D launch GEMM from course slides: one thread per output, row = idx / N and col = idx - row * N, __ldg loads and alpha scaling
// launch: grid cdiv(M * N, 128) block 128
// sizes: M=187 N=141 K=223 alpha=0.75
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library

__global__ void gemm_flat1d(int M, int N, int K, float alpha,
                            const float *A, const float *B, float *C)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= M * N)
        return;

    int row = idx / N;
    int col = idx - row * N;

    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += __ldg(&A[row * K + k]) * __ldg(&B[k * N + col]);

    C[idx] = alpha * sum;
}
