// style: image-processing tutorial 5x5 Gaussian blur on float pixels; integer weights 1-4-7-4-1 written as a literal 2-D array inside the kernel and divided by 273, zero padding done by `continue` on out-of-range taps inside a dy/dx loop, 32x8 blocks, host main
// launch: grid cdiv(width, 32), cdiv(height, 8) block 32, 8
// sizes: width=93 height=67
// expect: stencil-tile|stencil-window|stencil-march
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void gaussian_blur_5x5(const float *src, float *dst, int width, int height)
{
    const int weights[5][5] = {
        { 1,  4,  7,  4, 1 },
        { 4, 16, 26, 16, 4 },
        { 7, 26, 41, 26, 7 },
        { 4, 16, 26, 16, 4 },
        { 1,  4,  7,  4, 1 }
    };

    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    float acc = 0.0f;
    for (int dy = -2; dy <= 2; dy++) {
        for (int dx = -2; dx <= 2; dx++) {
            int yy = y + dy;
            int xx = x + dx;
            if (yy < 0 || yy >= height || xx < 0 || xx >= width)
                continue;   // pixels outside the image count as 0
            acc += weights[dy + 2][dx + 2] * src[yy * width + xx];
        }
    }
    dst[y * width + x] = acc / 273.0f;
}

int main()
{
    const int width = 93, height = 67;
    std::vector<float> img(width * height), out(width * height);
    for (int i = 0; i < width * height; ++i) img[i] = (float)(rand() % 256);

    float *d_src, *d_dst;
    cudaMalloc((void **)&d_src, img.size() * sizeof(float));
    cudaMalloc((void **)&d_dst, img.size() * sizeof(float));
    cudaMemcpy(d_src, img.data(), img.size() * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    gaussian_blur_5x5<<<grid, block>>>(d_src, d_dst, width, height);
    cudaDeviceSynchronize();

    cudaMemcpy(out.data(), d_dst, out.size() * sizeof(float), cudaMemcpyDeviceToHost);
    printf("out[0]=%f out[center]=%f\n", out[0], out[(height / 2) * width + width / 2]);
    cudaFree(d_src);
    cudaFree(d_dst);
    return 0;
}
