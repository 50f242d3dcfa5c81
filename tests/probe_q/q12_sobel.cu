// style: OpenCV-tutorial-port Sobel edge filter on an 8-bit grayscale image; unsigned char in, float magnitude out, literal -1/-2/+1/+2 weights on named neighbours p00..p22, border pixels zeroed with an early return, static_cast<float> loads
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=133 height=75
// expect: stencil-tile|stencil-window

__device__ __forceinline__ float px(const unsigned char* img, int x, int y, int width)
{
    return static_cast<float>(img[y * width + x]);
}

__global__ void sobel_kernel(const unsigned char* img, float* mag, int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        mag[y * width + x] = 0.0f;
        return;
    }

    const float p00 = px(img, x - 1, y - 1, width);
    const float p01 = px(img, x,     y - 1, width);
    const float p02 = px(img, x + 1, y - 1, width);
    const float p10 = px(img, x - 1, y,     width);
    const float p12 = px(img, x + 1, y,     width);
    const float p20 = px(img, x - 1, y + 1, width);
    const float p21 = px(img, x,     y + 1, width);
    const float p22 = px(img, x + 1, y + 1, width);

    const float gx = -1.0f * p00 + 1.0f * p02
                   - 2.0f * p10 + 2.0f * p12
                   - 1.0f * p20 + 1.0f * p22;
    const float gy = -1.0f * p00 - 2.0f * p01 - 1.0f * p02
                   + 1.0f * p20 + 2.0f * p21 + 1.0f * p22;

    mag[y * width + x] = sqrtf(gx * gx + gy * gy);
}
