// launch: grid cdiv(cols, 256) block 256
// sizes: rows=4000 cols=3000
// expect: column
// a column sum, a thread per column walking down the rows
__global__ void column_sum(const float* a, float* out, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < cols) {
        float s = 0.0f;
        for (int i = 0; i < rows; i++) s += a[i * cols + col];
        out[col] = s;
    }
}
