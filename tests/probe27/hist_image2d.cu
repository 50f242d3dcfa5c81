// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=640 height=480
// expect: private-bins
// grey-level histogram of an 8-bit image with 2-D thread indices
__global__ void image_hist(const unsigned char* img, unsigned int* bins, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        atomicAdd(&bins[img[y * width + x]], 1u);
}
