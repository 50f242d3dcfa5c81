// launch: grid cdiv(ncols, 64) block 64
// sizes: nrows=1300 ncols=520
// expect: column
// Per-column maximum of a row-major feature matrix (min-max normalisation preprocessing), unsigned indices, one thread per column
#include <cuda_runtime.h>
#include <cfloat>

__global__ void column_max_kernel(const float *data, float *colmax, unsigned nrows, unsigned ncols)
{
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncols)
        return;

    float m = -FLT_MAX;
    const float *p = data + c;
    for (unsigned r = 0; r < nrows; ++r) {
        m = fmaxf(m, *p);
        p += ncols;
    }
    colmax[c] = m;
}

void column_max(const float *d_data, float *d_colmax, unsigned nrows, unsigned ncols)
{
    const unsigned threads = 64;
    column_max_kernel<<<(ncols + threads - 1) / threads, threads>>>(d_data, d_colmax, nrows, ncols);
}
