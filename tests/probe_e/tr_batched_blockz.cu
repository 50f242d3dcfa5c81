// style: batched matrix transpose, batch on blockIdx.z with base offsets, host launcher
// launch: grid cdiv(cols, 32), cdiv(rows, 8), batch block 32, 8
// sizes: batch=4 rows=181 cols=223
// expect: transpose-tile
#include <cuda_runtime.h>

__global__ void batched_transpose(const float *in, float *out, int batch, int rows, int cols)
{
    int b = blockIdx.z;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (b < batch && r < rows && c < cols) {
        size_t base = (size_t)b * rows * cols;
        out[base + (size_t)c * rows + r] = in[base + (size_t)r * cols + c];
    }
}
