// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=450 cols=370
// expect: transpose-tile
// One-element-per-thread out-of-place transpose of a rectangular rows x cols matrix (StackOverflow / course homework style)
#include <cuda_runtime.h>

#define BLOCK_DIM 16

__global__ void transpose_simple(const float *in, float *out, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < rows && col < cols)
    {
        int in_idx  = row * cols + col;
        int out_idx = col * rows + row;
        out[out_idx] = in[in_idx];
    }
}

extern "C" void gpu_transpose(const float *d_in, float *d_out, int rows, int cols)
{
    dim3 grid((cols + BLOCK_DIM - 1) / BLOCK_DIM, (rows + BLOCK_DIM - 1) / BLOCK_DIM, 1);
    dim3 threads(BLOCK_DIM, BLOCK_DIM, 1);
    transpose_simple<<<grid, threads>>>(d_in, d_out, rows, cols);
}
