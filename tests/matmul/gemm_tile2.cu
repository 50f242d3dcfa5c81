// launch: grid cdiv(N, 32), cdiv(M, 32) block 16, 16
// sizes: M N K
// reference: C = A @ B
// recognise: tile 2x2
__global__ void mm_2x2(const float* A, const float* B, float* C, int M, int N, int K) {
    int col = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
    int row = (blockIdx.y * blockDim.y + threadIdx.y) * 2;
    float acc[2][2] = {{0.f, 0.f}, {0.f, 0.f}};
    for (int k = 0; k < K; k++)
        for (int m = 0; m < 2; m++)
            for (int n = 0; n < 2; n++)
                acc[m][n] += A[(row + m) * K + k] * B[k * N + col + n];
    for (int m = 0; m < 2; m++)
        for (int n = 0; n < 2; n++)
            if (row + m < M && col + n < N) C[(row + m) * N + col + n] = acc[m][n];
}
