// style: data-science course kernel: one thread per column walking every row of a row-major rows x cols matrix with Welford's running mean / M2, unbiased variance written at the end
// launch: grid cdiv(cols, 64) block 64
// sizes: rows=1001 cols=67
// expect: column

// per-column statistics for feature normalisation (X is rows x cols, row-major)
__global__ void column_mean_var(const float *X, float *mean, float *var, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float mu = 0.0f, m2 = 0.0f;
        for (int r = 0; r < rows; ++r) {
            float x = X[r * cols + c];
            float delta = x - mu;
            mu += delta / (float)(r + 1);
            m2 += delta * (x - mu);
        }
        mean[c] = mu;
        var[c] = (rows > 1) ? m2 / (float)(rows - 1) : 0.0f;
    }
}
