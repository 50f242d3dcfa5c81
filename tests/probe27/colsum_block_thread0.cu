// launch: grid cols block 64
// sizes: rows=900 cols=1200
// expect: column
// one block per column, its first thread walking down the column (a first port of a CPU loop)
__global__ void colsum_blocks(const float *a, float *out, int rows, int cols)
{
    int col = blockIdx.x;
    if (threadIdx.x == 0 && col < cols) {
        float acc = 0;
        for (int r = 0; r < rows; r++)
            acc += a[r * cols + col];
        out[col] = acc;
    }
}
