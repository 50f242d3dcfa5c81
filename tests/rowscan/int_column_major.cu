// launch: grid cdiv(rows, 128) block 128
// sizes: rows=45 cols=70
// expect: row-scan
// integer counts summed along each row, both the exclusive and the inclusive sum stored
__global__ void int_rows(const int* __restrict__ flags, int* __restrict__ excl, int* __restrict__ incl, int rows, int cols) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    int acc = 0;
    for (int c = 0; c < cols; c++) {
        excl[r * cols + c] = acc;
        acc += flags[r * cols + c] > 50 ? 1 : 0;
        incl[r * cols + c] = acc;
    }
}
