// style: Coursera/PMPP ch.3 blurKernel: grayscale unsigned char box blur over a (2*BLUR_SIZE+1)^2 patch, counting only in-image pixels
// launch: grid cdiv(w, 16), cdiv(h, 16) block 16, 16
// sizes: w=517 h=333
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLUR_SIZE 1

__global__ void blurKernel(unsigned char *in, unsigned char *out, int w, int h)
{
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    int Row = blockIdx.y * blockDim.y + threadIdx.y;

    if (Col < w && Row < h) {
        int pixVal = 0;
        int pixels = 0;

        // Get the average of the surrounding BLUR_SIZE x BLUR_SIZE box
        for (int blurRow = -BLUR_SIZE; blurRow < BLUR_SIZE + 1; ++blurRow) {
            for (int blurCol = -BLUR_SIZE; blurCol < BLUR_SIZE + 1; ++blurCol) {
                int curRow = Row + blurRow;
                int curCol = Col + blurCol;
                // Verify we have a valid image pixel
                if (curRow > -1 && curRow < h && curCol > -1 && curCol < w) {
                    pixVal += in[curRow * w + curCol];
                    pixels++;  // Keep track of number of pixels in the accumulated total
                }
            }
        }
        // Write our new pixel value out
        out[Row * w + Col] = (unsigned char)(pixVal / pixels);
    }
}

int main()
{
    int w = 517, h = 333;
    size_t n = (size_t)w * h;
    unsigned char *img = (unsigned char*)malloc(n);
    unsigned char *res = (unsigned char*)malloc(n);
    for (size_t i = 0; i < n; i++) img[i] = (unsigned char)(rand() & 0xff);

    unsigned char *d_in, *d_out;
    cudaMalloc((void**)&d_in, n);
    cudaMalloc((void**)&d_out, n);
    cudaMemcpy(d_in, img, n, cudaMemcpyHostToDevice);

    dim3 dimBlock(16, 16, 1);
    dim3 dimGrid((w - 1) / 16 + 1, (h - 1) / 16 + 1, 1);
    blurKernel<<<dimGrid, dimBlock>>>(d_in, d_out, w, h);
    cudaMemcpy(res, d_out, n, cudaMemcpyDeviceToHost);
    printf("res[w+1] = %d\n", res[w + 1]);

    cudaFree(d_in); cudaFree(d_out);
    free(img); free(res);
    return 0;
}
