// style: naive transpose with threadIdx.x on the input row index i (strided reads, coalesced writes), B[j][i] = A[i][j]
// launch: grid cdiv(n_rows, 32), cdiv(n_cols, 8) block 32, 8
// sizes: n_rows=523 n_cols=301
// expect: transpose-tile
__global__ void transpose_rows(const float* __restrict__ A, float* __restrict__ B, int n_rows, int n_cols)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n_rows && j < n_cols) {
        B[j * n_rows + i] = A[i * n_cols + j];
    }
}
