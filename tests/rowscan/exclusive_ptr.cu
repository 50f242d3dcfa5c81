// launch: grid cdiv(rows, 64) block 64
// sizes: rows=37 cols=101
// expect: row-scan
// an exclusive running sum through row pointers, stored before the update, a scale read per row, the total after
__global__ void excl_rows(const float* in, float* out, float* totals, const float* scale, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float* x = in + (size_t)r * cols;
        float* y = out + (size_t)r * cols;
        const float s = scale[r];
        float run = 1.0f;
        for (int c = 0; c < cols; ++c) {
            const float v = x[c] * s;
            y[c] = run;
            run = run + v;
        }
        totals[r] = run;
    }
}
