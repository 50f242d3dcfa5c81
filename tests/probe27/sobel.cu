// launch: grid cdiv(width, 32), cdiv(height, 8) block 32, 8
// sizes: width=512 height=384
// expect: stencil-tile
// Sobel edge magnitude, the usual course version
__global__ void sobel(const float *img, float *mag, int width, int height)
{
    int x = threadIdx.x + blockIdx.x * blockDim.x;
    int y = threadIdx.y + blockIdx.y * blockDim.y;
    if (x > 0 && y > 0 && x < width - 1 && y < height - 1) {
        float gx = -img[(y - 1) * width + (x - 1)] + img[(y - 1) * width + (x + 1)]
                   - 2.0f * img[y * width + (x - 1)] + 2.0f * img[y * width + (x + 1)]
                   - img[(y + 1) * width + (x - 1)] + img[(y + 1) * width + (x + 1)];
        float gy = -img[(y - 1) * width + (x - 1)] - 2.0f * img[(y - 1) * width + x] - img[(y - 1) * width + (x + 1)]
                   + img[(y + 1) * width + (x - 1)] + 2.0f * img[(y + 1) * width + x] + img[(y + 1) * width + (x + 1)];
        mag[y * width + x] = sqrtf(gx * gx + gy * gy);
    }
}
