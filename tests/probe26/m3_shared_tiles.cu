// launch: grid N / 32, M / 32 block 32, 32
// sizes: M=1024 N=1024 K=1024 alpha=1.5 beta=1.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
#define TILE 32

__global__ void sgemm_shared(int M, int N, int K, float alpha, const float* __restrict__ A,
                             const float* __restrict__ B, float beta, float* __restrict__ C) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const uint tx = threadIdx.x, ty = threadIdx.y;
    const uint row = blockIdx.y * TILE + ty;
    const uint col = blockIdx.x * TILE + tx;
    float tmp = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        Bs[ty][tx] = B[(t + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) tmp += As[ty][k] * Bs[k][tx];  // expect: matmul-without-tensor-cores
        __syncthreads();
    }
    C[row * N + col] = alpha * tmp + beta * C[row * N + col];
}

void launch_shared(int M, int N, int K, const float* A, const float* B, float* C) {
    sgemm_shared<<<dim3(N / TILE, M / TILE), dim3(TILE, TILE)>>>(M, N, K, 1.0f, A, B, 0.0f, C);
}
