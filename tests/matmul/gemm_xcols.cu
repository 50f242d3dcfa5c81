// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M N K
// reference: C = A @ B
// recognise: rows y, columns x
__global__ void matmul(const float* a, const float* b, float* c, int M, int N, int K) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float sum = 0;
    for (int k = 0; k < K; k++) {
        float x = a[row * K + k];
        float w = b[k * N + col];
        sum += x * w;
    }
    c[row * N + col] = sum;
}
