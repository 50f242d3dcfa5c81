// style: OpenCV-port style edge detector; two kernels (RGB->gray then Sobel), uchar pixels with a row `step` separate from width, Gx/Gy masks in __constant__ int arrays, every pixel computed with neighbour coordinates clamped by min/max (replicate border), PIX() indexing macro, L1 magnitude saturated to 255
// kernel: sobel_clamped
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=93 height=67 step=97
// expect: stencil-tile|stencil-window|stencil-march
#include <cuda_runtime.h>

#define PIX(img, r, c, ld) (img)[(r) * (ld) + (c)]

__constant__ int Gx[9] = { -1, 0, 1,
                           -2, 0, 2,
                           -1, 0, 1 };
__constant__ int Gy[9] = { -1, -2, -1,
                            0,  0,  0,
                            1,  2,  1 };

__global__ void rgb_to_gray(const uchar3 *rgb, unsigned char *gray, int width, int height, int step)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c < width && r < height) {
        uchar3 p = rgb[r * width + c];
        PIX(gray, r, c, step) = (unsigned char)(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
    }
}

__global__ void sobel_clamped(const unsigned char *in, unsigned char *out, int width, int height, int step)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= width || r >= height) return;

    int gx = 0, gy = 0;
    for (int i = -1; i <= 1; i++) {
        int rr = min(max(r + i, 0), height - 1);
        for (int j = -1; j <= 1; j++) {
            int cc = min(max(c + j, 0), width - 1);
            int v = PIX(in, rr, cc, step);
            gx += Gx[(i + 1) * 3 + (j + 1)] * v;
            gy += Gy[(i + 1) * 3 + (j + 1)] * v;
        }
    }
    int mag = abs(gx) + abs(gy);
    PIX(out, r, c, step) = (unsigned char)(mag > 255 ? 255 : mag);
}
