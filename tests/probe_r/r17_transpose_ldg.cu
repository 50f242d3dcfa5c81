// style: "naive transpose" from a GPU-programming blog, read-only cache variant; in is rows x cols, reads through __ldg(in + ...), writes out[c*rows + r] scattered, c from threadIdx.x
// launch: grid cdiv(cols, 32), cdiv(rows, 8) block 32, 8
// sizes: rows=75 cols=101
// expect: transpose-tile
#include <cuda_runtime.h>

__global__ void transpose_ldg(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[c * rows + r] = __ldg(in + r * cols + c);
}
