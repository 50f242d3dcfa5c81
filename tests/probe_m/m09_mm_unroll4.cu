// style: "optimization lecture" step-1 kernel: one output per thread, k loop hand-unrolled by 4 into four partial sums, then a scalar remainder loop for K % 4
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
__global__ void mm_unroll4(const float* A, const float* B, float* C, int M, int N, int K)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < M && c < N) {
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        int k = 0;
        for (; k + 3 < K; k += 4) {
            s0 += A[r * K + k    ] * B[(k    ) * N + c];
            s1 += A[r * K + k + 1] * B[(k + 1) * N + c];
            s2 += A[r * K + k + 2] * B[(k + 2) * N + c];
            s3 += A[r * K + k + 3] * B[(k + 3) * N + c];
        }
        for (; k < K; ++k)
            s0 += A[r * K + k] * B[k * N + c];
        C[r * N + c] = (s0 + s1) + (s2 + s3);
    }
}
