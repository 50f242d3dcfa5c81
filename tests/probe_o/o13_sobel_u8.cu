// style: OpenCV-tutorial-ish Sobel on an 8-bit grayscale image, float magnitude out; __device__ pixel helper and 3x3 weight tables
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=131 height=67
// expect: stencil-tile|stencil-window|stencil-march
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float px(const unsigned char *img, int x, int y, int w)
{
    return (float)img[y * w + x];
}

__global__ void sobelKernel(const unsigned char *img, float *mag, int width, int height)
{
    const int kx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
    const int ky[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};

    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        mag[y * width + x] = 0.0f;
        return;
    }
    float gx = 0.0f, gy = 0.0f;
#pragma unroll
    for (int dy = -1; dy <= 1; dy++) {
#pragma unroll
        for (int dx = -1; dx <= 1; dx++) {
            float p = px(img, x + dx, y + dy, width);
            gx += kx[dy + 1][dx + 1] * p;
            gy += ky[dy + 1][dx + 1] * p;
        }
    }
    mag[y * width + x] = sqrtf(gx * gx + gy * gy);
}

int main()
{
    const int width = 131, height = 67;
    unsigned char *h_img = (unsigned char *)malloc(width * height);
    float *h_mag = (float *)malloc(width * height * sizeof(float));
    for (int i = 0; i < width * height; i++) h_img[i] = (unsigned char)((i * 37) & 0xff);

    unsigned char *d_img;
    float *d_mag;
    cudaMalloc(&d_img, width * height);
    cudaMalloc(&d_mag, width * height * sizeof(float));
    cudaMemcpy(d_img, h_img, width * height, cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 blocks((width + 15) / 16, (height + 15) / 16);
    sobelKernel<<<blocks, threads>>>(d_img, d_mag, width, height);
    cudaMemcpy(h_mag, d_mag, width * height * sizeof(float), cudaMemcpyDeviceToHost);

    printf("mag[1][1] = %f\n", h_mag[width + 1]);
    cudaFree(d_img); cudaFree(d_mag);
    free(h_img); free(h_mag);
    return 0;
}
