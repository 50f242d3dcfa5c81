// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=300 N=200 K=100
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void abt(const float* a, const float* b, float* c, int M, int N, int K) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < M && j < N) {
        float s = 0.f;
        for (int k = 0; k < K; ++k) s += b[i * K + k] * a[j * K + k];
        c[i * N + j] = s;
    }
}
