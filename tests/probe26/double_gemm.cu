// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n=1000
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
__global__ void dgemm(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ c, int n) {
    int col = threadIdx.x + blockIdx.x * blockDim.x;
    int row = threadIdx.y + blockIdx.y * blockDim.y;
    if (row >= n || col >= n) return;
    double s = 0;
    for (int k = 0; k < n; ++k) s += a[row * n + k] * b[k * n + col];
    c[row * n + col] = s;
}
