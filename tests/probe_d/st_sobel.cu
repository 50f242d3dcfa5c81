// launch: grid cdiv(width, 32), cdiv(height, 8) block 32, 8
// sizes: width=402 height=301
// expect: stencil-tile
// Sobel edge detector on an 8-bit grayscale image (classic course/blog example): gradient magnitude, border pixels set to 0
#include <cuda_runtime.h>
#include <math.h>

__device__ __forceinline__ int px(const unsigned char* img, int x, int y, int width) {
    return (int)img[y * width + x];
}

__global__ void sobel_kernel(const unsigned char* __restrict__ src, float* __restrict__ dst,
                             int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        dst[y * width + x] = 0.0f;
        return;
    }

    int gx = -px(src, x - 1, y - 1, width) + px(src, x + 1, y - 1, width)
             - 2 * px(src, x - 1, y, width) + 2 * px(src, x + 1, y, width)
             - px(src, x - 1, y + 1, width) + px(src, x + 1, y + 1, width);
    int gy = -px(src, x - 1, y - 1, width) - 2 * px(src, x, y - 1, width) - px(src, x + 1, y - 1, width)
             + px(src, x - 1, y + 1, width) + 2 * px(src, x, y + 1, width) + px(src, x + 1, y + 1, width);

    dst[y * width + x] = sqrtf((float)(gx * gx + gy * gy));
}
