// launch: grid cdiv(ncols, 128) block 128
// sizes: nrows=5000 ncols=260
// expect: column
// max of each column, pointer bumped by the leading dimension, unsigned indices (feature-scaling preprocessing kernel style)
#include <cfloat>

__global__ void colMaxKernel(const float *mat, float *colMax, unsigned nrows, unsigned ncols)
{
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= ncols)
        return;

    const float *p = mat + col;
    float m = -FLT_MAX;
    for (unsigned r = 0; r < nrows; ++r, p += ncols)
        m = fmaxf(m, *p);
    colMax[col] = m;
}
