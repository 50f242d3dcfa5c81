// launch: grid cdiv(N, 16), cdiv(M, 16), 8 block 16, 16
// sizes: M=300 N=200 K=100
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void batched_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    int batch = blockIdx.z;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    A += batch * M * K;
    B += batch * K * N;
    C += batch * M * N;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
