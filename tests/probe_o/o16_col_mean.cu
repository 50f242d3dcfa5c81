// style: Caffe/Darknet-like per-feature mean, one thread per column walking down rows with a strided pointer (size_t, while loop)
// launch: grid cdiv(ncols, 64) block 64
// sizes: nrows=517 ncols=131
// expect: column

__global__ void colMean(const float *X, float *mu, size_t nrows, size_t ncols)
{
    size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j < ncols) {
        const float *p = X + j;
        float s = 0.0f;
        size_t i = 0;
        while (i < nrows) {
            s += *p;
            p += ncols;
            ++i;
        }
        mu[j] = s / (float)nrows;
    }
}
