// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=800 height=600
// expect: stencil-tile
// Jacobi iteration for Laplace's equation, one sweep into a second buffer
#define IDX(row, col) ((row) * width + (col))

__global__ void laplace_sweep(float *out, const float *in, unsigned width, unsigned height)
{
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row > 0 && row < height - 1 && col > 0 && col < width - 1) {
        out[IDX(row, col)] = 0.25f * (in[IDX(row - 1, col)] + in[IDX(row + 1, col)]
                                    + in[IDX(row, col - 1)] + in[IDX(row, col + 1)]);
    }
}
