// style: beginner GitHub repo "sum each row of a matrix": one thread per row, for (j < cols) s += A[row*cols + j]; uncoalesced across the warp
// launch: grid cdiv(rows, 128) block 128
// sizes: rows=1001 cols=317
// expect: row-warp|row-block
__global__ void rowSum(const float *A, float *rowsums, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float s = 0.0f;
        for (int j = 0; j < cols; j++)
            s += A[row * cols + j];
        rowsums[row] = s;
    }
}
