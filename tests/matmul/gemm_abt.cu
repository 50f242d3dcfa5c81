// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M N K
// reference: C = A @ B.T
// recognise: transposed
__global__ void gemm_abt(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                         int M, int N, int K) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < M && j < N) {
        float acc = 0.f;
        for (int k = 0; k < K; ++k) acc = fmaf(a[i * K + k], b[j * K + k], acc);
        c[i * N + j] = acc;
    }
}
