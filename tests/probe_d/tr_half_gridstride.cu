// launch: grid 12, 20 block 32, 8
// sizes: rows=520 cols=440
// expect: transpose-tile
// __half matrix transpose with 2-D grid-stride loops (fixed grid, any size), mixed-precision preprocessing style
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void transpose_half_gs(const __half* in, __half* out, int rows, int cols)
{
    for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y) {
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * gridDim.x) {
            out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
        }
    }
}

void transpose_half(const __half* d_in, __half* d_out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid(12, 20);   // fixed, the loops cover the rest
    transpose_half_gs<<<grid, block, 0, stream>>>(d_in, d_out, rows, cols);
}
