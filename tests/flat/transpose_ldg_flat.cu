// transpose of an M x N matrix of doubles, size_t index, the column as the remainder written out, __ldg
__global__ void mat_transpose(double* __restrict__ B, const double* __restrict__ A, int M, int N) {
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t row = t / N;
    const size_t col = t - row * N;
    if (row < M) B[col * M + row] = __ldg(&A[row * N + col]);
}
