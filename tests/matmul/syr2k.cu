// launch: grid cdiv(N, 16), cdiv(N, 16) block 16, 16
// sizes: N K
// reference: C = A @ B.T + B @ A.T
// recognise: two products
__global__ void syr2k(const float* A, const float* B, float* C, int N, int K) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < N && j < N) {
        float s = 0.0f;
        for (int k = 0; k < K; k++) s += A[i * K + k] * B[j * K + k] + B[i * K + k] * A[j * K + k];
        C[i * N + j] = s;
    }
}
