// style: numerical-course matrix AXPY -- 2-D thread indices named r/c, row pointers for x and y, compound y[c] += a * x[c] through the row pointer
// launch: grid cdiv(cols, 32), cdiv(rows, 8) block 32, 8
// sizes: a=1.5 rows=67 cols=131
// expect: elementwise
#include <cuda_runtime.h>

__global__ void mat_axpy(float a, const float *__restrict__ x, float *__restrict__ y,
                         int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows) return;
    if (c >= cols) return;

    const float *xr = x + (size_t)r * cols;
    float *yr = y + (size_t)r * cols;
    yr[c] += a * xr[c];
}

void launch_mat_axpy(float a, const float *d_x, float *d_y, int rows, int cols, cudaStream_t s)
{
    dim3 blk(32, 8);
    dim3 grd((cols + blk.x - 1) / blk.x, (rows + blk.y - 1) / blk.y);
    mat_axpy<<<grd, blk, 0, s>>>(a, d_x, d_y, rows, cols);
}
