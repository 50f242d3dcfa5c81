// launch: grid cdiv(M * N, 128) block 128
// sizes: M N K
// reference: C = A @ B
// recognise: one index
__global__ void mm_flat(const float* A, const float* B, float* C, int M, int N, int K) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int r = idx / N, c = idx % N;
    if (idx < M * N) {
        float s = 0.0f;
        for (int k = 0; k < K; k++) s += A[r * K + k] * B[k * N + c];
        C[idx] = s;
    }
}
