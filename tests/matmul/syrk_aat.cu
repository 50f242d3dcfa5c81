// launch: grid cdiv(N, 32), cdiv(N, 8) block 32, 8
// sizes: N K
// reference: C = A @ A.T
// recognise: rows y, columns x, transposed
__global__ void syrk(const float* A, float* C, int N, int K) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < N && col < N) {
        double acc = 0.0;
        for (int k = 0; k < K; k++) acc += (double)A[row * K + k] * (double)A[col * K + k];
        C[row * N + col] = (float)acc;
    }
}
