// launch: grid cdiv(rows, 128) block 128
// sizes: rows=600 cols=500
// expect: block-scan|scan-library|row-scan
// Row-wise inclusive cumulative sum (torch.cumsum(x, dim=1) on a row-major matrix), one thread per row with row pointers
#include <cuda_runtime.h>

typedef struct {
    int rows;
    int cols;
} Shape2D;

__global__ void row_cumsum(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float running = 0.f;
    for (int c = 0; c < cols; ++c) {
        running += xr[c];
        yr[c] = running;
    }
}

void cumsum_rows(const float* d_x, float* d_y, Shape2D s)
{
    dim3 block(128);
    dim3 grid((s.rows + block.x - 1) / block.x);
    row_cumsum<<<grid, block>>>(d_x, d_y, s.rows, s.cols);
}
