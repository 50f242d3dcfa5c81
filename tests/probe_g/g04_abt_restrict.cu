// style: "NT" GEMM C = A * B^T as seen in DL repos (B stored row-major N x K); __restrict__, row pointers, unrolled inner loop
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
__global__ void matmul_abt(const float* __restrict__ A,
                           const float* __restrict__ B,
                           float* __restrict__ C,
                           int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        const float* a = A + row * K;
        const float* b = B + col * K;
        float s = 0.0f;
#pragma unroll 4
        for (int k = 0; k < K; k++) {
            s += a[k] * b[k];
        }
        C[row * N + col] = s;
    }
}
