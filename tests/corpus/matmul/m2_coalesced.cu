// corpus: matmul step 2: threadIdx.x walks the columns of C, so a warp reads B and writes C contiguously
// fixes: uncoalesced-access
// absent: fp64-in-float-kernel, register-spill, local-memory, low-occupancy, shared-bank-conflict, sync-in-divergent-branch
__global__ void sgemm_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    const uint col = blockIdx.x * blockDim.x + threadIdx.x;
    const uint row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float tmp = 0.0f;
        for (int i = 0; i < K; ++i) tmp += A[row * K + i] * B[i * N + col];  // expect: matmul-without-tensor-cores, matmul-global-operands
        C[row * N + col] = alpha * tmp + beta * C[row * N + col];
    }
}

void launch_coalesced(int M, int N, int K, const float* A, const float* B, float* C) {
    dim3 grid((N + 31) / 32, (M + 31) / 32);
    dim3 block(32, 32);
    sgemm_coalesced<<<grid, block>>>(M, N, K, 1.0f, A, B, 0.0f, C);
}
