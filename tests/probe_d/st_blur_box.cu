// launch: grid cdiv(w, 16), cdiv(h, 16) block 16, 16
// sizes: w=333 h=251
// expect: stencil-tile
// PMPP / ECE408 image blur: (2*BLUR_SIZE+1)^2 box filter on an unsigned char grayscale image, edge pixels averaged over valid neighbours
#include <cuda_runtime.h>
#include <cstdio>

#define BLUR_SIZE 3

__global__
void blurKernel(unsigned char * in, unsigned char * out, int w, int h) {
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    int Row = blockIdx.y * blockDim.y + threadIdx.y;

    if (Col < w && Row < h) {
        int pixVal = 0;
        int pixels = 0;

        // Get the average of the surrounding (2xBLUR_SIZE+1)x(2xBLUR_SIZE+1) box
        for (int blurRow = -BLUR_SIZE; blurRow < BLUR_SIZE + 1; ++blurRow) {
            for (int blurCol = -BLUR_SIZE; blurCol < BLUR_SIZE + 1; ++blurCol) {
                int curRow = Row + blurRow;
                int curCol = Col + blurCol;
                // Verify we have a valid image pixel
                if (curRow > -1 && curRow < h && curCol > -1 && curCol < w) {
                    pixVal += in[curRow * w + curCol];
                    pixels++; // Keep track of number of pixels in the avg
                }
            }
        }
        // Write our new pixel value out
        out[Row * w + Col] = (unsigned char)(pixVal / pixels);
    }
}

int main() {
    const int w = 333, h = 251;
    unsigned char *img, *blurred;
    cudaMallocManaged(&img, w * h);
    cudaMallocManaged(&blurred, w * h);
    for (int i = 0; i < w * h; ++i) img[i] = (unsigned char)((i * 7) & 0xff);

    dim3 threads(16, 16);
    dim3 blocks((w + threads.x - 1) / threads.x, (h + threads.y - 1) / threads.y);
    blurKernel<<<blocks, threads>>>(img, blurred, w, h);
    cudaDeviceSynchronize();

    printf("%d %d\n", blurred[0], blurred[w * h - 1]);
    cudaFree(img);
    cudaFree(blurred);
    return 0;
}
