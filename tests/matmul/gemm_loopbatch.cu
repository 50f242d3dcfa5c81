// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: Bt M N K
// reference: C = A @ B (batched)
// recognise: batch loop
__global__ void bmm_loop(const float* A, const float* B, float* C, int Bt, int M, int N, int K) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        for (int b = 0; b < Bt; b++) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += A[b * M * K + row * K + k] * B[b * K * N + k * N + col];
            C[b * M * N + row * N + col] = acc;
        }
    }
}
