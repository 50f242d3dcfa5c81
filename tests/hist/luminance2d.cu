// an image-intensity histogram: 2-D blocks over an RGB image, the luminance clamped to 255
__global__ void luminance_histogram(const unsigned char* rgb, unsigned int* hist, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        int idx = (row * width + col) * 3;
        float lum = 0.299f * rgb[idx] + 0.587f * rgb[idx + 1] + 0.114f * rgb[idx + 2];
        int bin = min((int)lum, 255);
        atomicAdd(&hist[bin], 1);
    }
}
