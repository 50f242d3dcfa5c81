// launch: grid cdiv(N, 16), cdiv(M, 16), Bt block 16, 16
// sizes: Bt M N K
// reference: C = A @ B (batched)
// recognise: batch z
__global__ void bmm(const float* A, const float* B, float* C, int M, int N, int K) {
    int b = blockIdx.z;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        const float* a = A + (size_t)b * M * K;
        const float* bb = B + (size_t)b * K * N;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += a[row * K + k] * bb[k * N + col];
        C[(size_t)b * M * N + row * N + col] = acc;
    }
}
