// launch: grid cdiv(n, 128) block 128
// sizes: m=1500 n=1000 alpha=1.5 beta=0.5
// expect: column
// y = alpha * A^T x + beta * y for a row-major A (m x n): one thread per column of A
__global__ void sgemv_t(int m, int n, float alpha, const float *A, const float *x, float beta, float *y)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < n) {
        float dot = 0.0f;
        for (int row = 0; row < m; row++) {
            dot += A[row * n + col] * x[row];
        }
        y[col] = alpha * dot + beta * y[col];
    }
}
