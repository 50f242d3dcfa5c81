// style: image-processing blog post, 3x3 sharpen filter as a literal-initialised __constant__ float[3][3], clamp-to-edge borders with min/max, unrolled dy/dx loops, row-major grayscale float image
// launch: grid cdiv(width, 32), cdiv(height, 8) block 32, 8
// sizes: width=129 height=67
// expect: stencil-tile
#include <cuda_runtime.h>

__constant__ float c_sharpen[3][3] = {
    { 0.0f, -1.0f,  0.0f},
    {-1.0f,  5.0f, -1.0f},
    { 0.0f, -1.0f,  0.0f},
};

__global__ void sharpen3x3(const float *src, float *dst, int width, int height)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;

    float acc = 0.0f;
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy) {
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) {
            int sx = min(max(px + dx, 0), width - 1);
            int sy = min(max(py + dy, 0), height - 1);
            acc += c_sharpen[dy + 1][dx + 1] * src[sy * width + sx];
        }
    }
    dst[py * width + px] = acc;
}
