// launch: grid cdiv(cols, 256) block 256
// sizes: rows=4000 cols=300
// expect: column
// sum of every column, one thread per column looping down all rows (StackOverflow "sum matrix columns in CUDA" answer style)
__global__ void column_sum(const float* __restrict__ A, float* __restrict__ colSums, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float s = 0.0f;
        for (int r = 0; r < rows; ++r)
            s += A[r * cols + c];
        colSums[c] = s;
    }
}
