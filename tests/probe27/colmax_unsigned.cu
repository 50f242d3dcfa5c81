// launch: grid cdiv(ncol, 256) block 256
// sizes: nrow=512 ncol=2000
// expect: column
// per-column maxima
__global__ void col_max(const float *x, float *m, unsigned nrow, unsigned ncol)
{
    unsigned j = threadIdx.x + blockIdx.x * blockDim.x;
    if (j < ncol) {
        float best = x[j];
        for (unsigned i = 1; i < nrow; i++)
            best = fmaxf(best, x[i * ncol + j]);
        m[j] = best;
    }
}
