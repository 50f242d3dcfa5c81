// y = A^T x: a thread per column walking down the rows (A is M x N, row-major)
__global__ void colmv(const float* A, const float* x, float* y, int M, int N) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < N) {
        float s = 0.0f;
        for (int i = 0; i < M; i++) s += A[i * N + j] * x[i];
        y[j] = s;
    }
}
