// Sobel gradient magnitude over a flat pixel index; the column is the remainder written out
__global__ void sobel(const float* __restrict__ img, float* __restrict__ mag, int width, int height) {
    const int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel >= width * height) return;
    const int y = pixel / width;
    const int x = pixel - y * width;
    if (x < 1 || y < 1 || x > width - 2 || y > height - 2) return;
    float gx = -img[(y - 1) * width + x - 1] + img[(y - 1) * width + x + 1]
               - 2.0f * img[y * width + x - 1] + 2.0f * img[y * width + x + 1]
               - img[(y + 1) * width + x - 1] + img[(y + 1) * width + x + 1];
    float gy = -img[(y - 1) * width + x - 1] - 2.0f * img[(y - 1) * width + x] - img[(y - 1) * width + x + 1]
               + img[(y + 1) * width + x - 1] + 2.0f * img[(y + 1) * width + x] + img[(y + 1) * width + x + 1];
    mag[pixel] = sqrtf(gx * gx + gy * gy);
}
