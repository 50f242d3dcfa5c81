// style: data-science/ML preprocessing snippet "feature means": one thread per column of a row-major samples x features matrix, walks down the column then divides by nrows
// launch: grid cdiv(ncols, 64) block 64
// sizes: nrows=2003 ncols=357
// expect: column
__global__ void col_mean(const float *X, float *mu, int nrows, int ncols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncols) return;

    float acc = 0.f;
    for (int r = 0; r < nrows; ++r)
        acc += X[(size_t)r * ncols + c];
    mu[c] = acc / (float)nrows;
}
