// style: GitHub "cuda-image-processing" repo Sobel edge detector on a float image, Gx/Gy written out by hand, gradient magnitude with sqrtf, border pixels set to 0
// launch: grid cdiv(imgW, 32), cdiv(imgH, 16) block 32, 16
// sizes: imgW=259 imgH=181
// expect: stencil-tile
#include <math.h>

__global__ void sobelFilter(const float* img, float* gradMag, int imgW, int imgH)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= imgW || y >= imgH) return;

    if (x == 0 || y == 0 || x == imgW - 1 || y == imgH - 1) {
        gradMag[y * imgW + x] = 0.0f;
        return;
    }

    float p00 = img[(y - 1) * imgW + (x - 1)];
    float p01 = img[(y - 1) * imgW + x];
    float p02 = img[(y - 1) * imgW + (x + 1)];
    float p10 = img[y * imgW + (x - 1)];
    float p12 = img[y * imgW + (x + 1)];
    float p20 = img[(y + 1) * imgW + (x - 1)];
    float p21 = img[(y + 1) * imgW + x];
    float p22 = img[(y + 1) * imgW + (x + 1)];

    float gx = (p02 + 2.0f * p12 + p22) - (p00 + 2.0f * p10 + p20);
    float gy = (p20 + 2.0f * p21 + p22) - (p00 + 2.0f * p01 + p02);

    gradMag[y * imgW + x] = sqrtf(gx * gx + gy * gy);
}
