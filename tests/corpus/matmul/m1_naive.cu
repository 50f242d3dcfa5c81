// corpus: matmul step 1: one thread per output, threadIdx.x walks the rows of C (uint indices)
// absent: fp64-in-float-kernel, register-spill, local-memory, low-occupancy, shared-bank-conflict, sync-in-divergent-branch
__global__ void sgemm_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    const uint x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < M && y < N) {
        float tmp = 0.0f;
        for (int i = 0; i < K; ++i) tmp += A[x * K + i] * B[i * N + y];  // expect: matmul-without-tensor-cores, matmul-global-operands, uncoalesced-access
        C[x * N + y] = alpha * tmp + beta * C[x * N + y];  // expect: uncoalesced-access
    }
}

void launch_naive(int M, int N, int K, const float* A, const float* B, float* C) {
    dim3 grid((M + 31) / 32, (N + 31) / 32);
    dim3 block(32, 32);
    sgemm_naive<<<grid, block>>>(M, N, K, 1.0f, A, B, 0.0f, C);
}
