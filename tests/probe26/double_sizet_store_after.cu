// launch: grid cdiv(m, 16), cdiv(m, 16) block 16, 16
// sizes: n=300 k=200 m=300
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// double, a size_t counter, the store after the guard
__global__ void matrixMultiplicationKernel(double *A, double *B, double *C, int n, int k, int m) {
    int ROW = blockIdx.y * blockDim.y + threadIdx.y;
    int COL = blockIdx.x * blockDim.x + threadIdx.x;
    double currentSum = 0.0;
    if (ROW < m && COL < n) {
        for (size_t i = 0; i < k; i++) {
            currentSum += A[ROW * k + i] * B[i * m + COL];
        }
    }
    C[ROW * m + COL] = currentSum;
}
