// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M N K
// reference: C = C + alpha * A @ B
// recognise: global, alpha
__global__ void gemm_acc(float* c, const float* a, const float* b, float alpha, int M, int N, int K) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < M && j < N) {
        for (int k = 0; k < K; k++) {
            c[i * N + j] += alpha * a[i * K + k] * b[k * N + j];
        }
    }
}
