// style: PMPP / UIUC ECE408 lab "image blur" blurKernel on a grayscale unsigned char image, BLUR_SIZE box, averages only in-bounds pixels
// launch: grid cdiv(w, 16), cdiv(h, 16) block 16, 16
// sizes: w=317 h=239
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>
#include <cuda.h>
#include <cuda_runtime.h>

#define BLUR_SIZE 3
#define TILE_WIDTH 16

#define wbCheck(stmt) do { cudaError_t err = stmt; if (err != cudaSuccess) { \
      printf("Failed to run stmt %s\n", #stmt); return -1; } } while (0)

__global__ void blurKernel(unsigned char *in, unsigned char *out, int w, int h)
{
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    int Row = blockIdx.y * blockDim.y + threadIdx.y;

    if (Col < w && Row < h) {
        int pixVal = 0;
        int pixels = 0;
        // Get the average of the surrounding (2*BLUR_SIZE+1)^2 box
        for (int blurRow = -BLUR_SIZE; blurRow < BLUR_SIZE + 1; ++blurRow) {
            for (int blurCol = -BLUR_SIZE; blurCol < BLUR_SIZE + 1; ++blurCol) {
                int curRow = Row + blurRow;
                int curCol = Col + blurCol;
                // Verify we have a valid image pixel
                if (curRow > -1 && curRow < h && curCol > -1 && curCol < w) {
                    pixVal += in[curRow * w + curCol];
                    pixels++;
                }
            }
        }
        out[Row * w + Col] = (unsigned char)(pixVal / pixels);
    }
}

int main(int argc, char *argv[])
{
    int imageWidth = 317;
    int imageHeight = 239;
    int imgSize = imageWidth * imageHeight * sizeof(unsigned char);

    unsigned char *hostInputImageData = (unsigned char *)malloc(imgSize);
    unsigned char *hostOutputImageData = (unsigned char *)malloc(imgSize);
    for (int ii = 0; ii < imageWidth * imageHeight; ii++)
        hostInputImageData[ii] = (unsigned char)(rand() & 0xff);

    unsigned char *deviceInputImageData;
    unsigned char *deviceOutputImageData;
    wbCheck(cudaMalloc((void **)&deviceInputImageData, imgSize));
    wbCheck(cudaMalloc((void **)&deviceOutputImageData, imgSize));
    wbCheck(cudaMemcpy(deviceInputImageData, hostInputImageData, imgSize, cudaMemcpyHostToDevice));

    dim3 DimGrid((imageWidth - 1) / TILE_WIDTH + 1, (imageHeight - 1) / TILE_WIDTH + 1, 1);
    dim3 DimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    blurKernel<<<DimGrid, DimBlock>>>(deviceInputImageData, deviceOutputImageData,
                                      imageWidth, imageHeight);
    cudaDeviceSynchronize();

    wbCheck(cudaMemcpy(hostOutputImageData, deviceOutputImageData, imgSize, cudaMemcpyDeviceToHost));
    printf("out[0]=%d out[last]=%d\n", hostOutputImageData[0],
           hostOutputImageData[imageWidth * imageHeight - 1]);

    cudaFree(deviceInputImageData);
    cudaFree(deviceOutputImageData);
    free(hostInputImageData);
    free(hostOutputImageData);
    return 0;
}
