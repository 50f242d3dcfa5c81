// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M N K
// reference: C = A @ B, the k loop unrolled by hand by four, each later step guarded against the end (no
// remainder loop): a public port's spelling
// recognise: one step per iteration (reroll_loops)
__global__ void mm_unroll_guarded(float *a, float *b, float *c, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    if (col < N && row < M) {
        for (int i = 0; i < K; i += 4) {
            sum += a[row * K + i] * b[i * N + col];
            if (i + 1 < K) sum += a[row * K + i + 1] * b[(i + 1) * N + col];
            if (i + 2 < K) { sum += a[row * K + i + 2] * b[(i + 2) * N + col]; }
            if (i + 3 < K) sum += a[row * K + i + 3] * b[(i + 3) * N + col];
        }
        c[row * N + col] = sum;
    }
}
