// style: OpenCV-tutorial-style Sobel edge detector port; unsigned char grayscale in/out, PIX(x, y) macro over w, gx/gy spelled out term by term with int arithmetic, magnitude abs(gx) + abs(gy) saturated to 255, border pixels written 0 then early return, no host code
// launch: grid cdiv(w, 32), cdiv(h, 8) block 32, 8
// sizes: w=145 h=99
// expect: stencil-tile|stencil-window
#include <cuda_runtime.h>
#include <cstdlib>

#define PIX(x, y) in[(y) * w + (x)]

__global__ void sobel_filter(const unsigned char *in, unsigned char *out, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= w || row >= h) return;

    if (col == 0 || row == 0 || col == w - 1 || row == h - 1) {
        out[row * w + col] = 0;
        return;
    }

    int gx = -PIX(col - 1, row - 1) + PIX(col + 1, row - 1)
             - 2 * PIX(col - 1, row) + 2 * PIX(col + 1, row)
             - PIX(col - 1, row + 1) + PIX(col + 1, row + 1);
    int gy = -PIX(col - 1, row - 1) - 2 * PIX(col, row - 1) - PIX(col + 1, row - 1)
             + PIX(col - 1, row + 1) + 2 * PIX(col, row + 1) + PIX(col + 1, row + 1);

    int mag = abs(gx) + abs(gy);
    out[row * w + col] = (unsigned char)(mag > 255 ? 255 : mag);
}
