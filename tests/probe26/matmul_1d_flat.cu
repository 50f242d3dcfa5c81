// launch: grid cdiv(N * N, 256) block 256
// sizes: N=300
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// one thread per output of a square product on a 1-D grid: row and column from the flat index
__global__ void matmul_flat(const float* a, const float* b, float* c, int N) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < N * N) {
        int row = tid / N;
        int col = tid % N;
        float sum = 0.0f;
        for (int i = 0; i < N; i++) sum += a[row * N + i] * b[i * N + col];
        c[tid] = sum;
    }
}
