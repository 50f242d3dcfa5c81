// style: PMPP ch.3 blurKernel (BLUR_SIZE box filter on unsigned char, counts in-bounds pixels), host main
// launch: grid cdiv(w, 16), cdiv(h, 16) block 16, 16
// sizes: w=317 h=239
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>

#define BLUR_SIZE 1

__global__ void blurKernel(unsigned char * in, unsigned char * out, int w, int h) {
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    int Row = blockIdx.y * blockDim.y + threadIdx.y;

    if (Col < w && Row < h) {
        int pixVal = 0;
        int pixels = 0;

        // Get the average of the surrounding BLUR_SIZE x BLUR_SIZE box
        for (int blurRow = -BLUR_SIZE; blurRow < BLUR_SIZE+1; ++blurRow) {
            for (int blurCol = -BLUR_SIZE; blurCol < BLUR_SIZE+1; ++blurCol) {
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
    int w = 317, h = 239;
    unsigned char *h_in = (unsigned char *)malloc(w * h);
    unsigned char *h_out = (unsigned char *)malloc(w * h);
    for (int i = 0; i < w * h; i++) h_in[i] = (unsigned char)(rand() % 256);
    unsigned char *d_in, *d_out;
    cudaMalloc((void **)&d_in, w * h);
    cudaMalloc((void **)&d_out, w * h);
    cudaMemcpy(d_in, h_in, w * h, cudaMemcpyHostToDevice);
    dim3 dimGrid(ceil(w / 16.0), ceil(h / 16.0), 1);
    dim3 dimBlock(16, 16, 1);
    blurKernel<<<dimGrid, dimBlock>>>(d_in, d_out, w, h);
    cudaMemcpy(h_out, d_out, w * h, cudaMemcpyDeviceToHost);
    printf("%d\n", h_out[0]);
    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
