// style: PMPP ch.7 2-D convolution with the mask in __constant__ memory (MASK_WIDTH 5), zero ghost cells skipped by bounds checks, output to a separate image
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=427 height=241
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define MASK_WIDTH 5
#define MASK_RADIUS (MASK_WIDTH / 2)

__constant__ float M[MASK_WIDTH][MASK_WIDTH];

__global__ void convolution_2D_basic_kernel(const float *N, float *P, int width, int height)
{
    int outCol = blockIdx.x * blockDim.x + threadIdx.x;
    int outRow = blockIdx.y * blockDim.y + threadIdx.y;
    if (outRow < height && outCol < width) {
        float Pvalue = 0.0f;
        for (int fRow = 0; fRow < MASK_WIDTH; fRow++) {
            for (int fCol = 0; fCol < MASK_WIDTH; fCol++) {
                int inRow = outRow - MASK_RADIUS + fRow;
                int inCol = outCol - MASK_RADIUS + fCol;
                if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                    Pvalue += M[fRow][fCol] * N[inRow * width + inCol];
                }
            }
        }
        P[outRow * width + outCol] = Pvalue;
    }
}

int main()
{
    int width = 427, height = 241;
    size_t bytes = (size_t)width * height * sizeof(float);
    float h_M[MASK_WIDTH][MASK_WIDTH];
    for (int i = 0; i < MASK_WIDTH; i++)
        for (int j = 0; j < MASK_WIDTH; j++)
            h_M[i][j] = 1.0f / (MASK_WIDTH * MASK_WIDTH);

    float *h_N = (float*)malloc(bytes), *h_P = (float*)malloc(bytes);
    for (int i = 0; i < width * height; i++) h_N[i] = (float)(i % 255);

    float *d_N, *d_P;
    cudaMalloc(&d_N, bytes);
    cudaMalloc(&d_P, bytes);
    cudaMemcpy(d_N, h_N, bytes, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(M, h_M, sizeof(h_M));

    dim3 dimBlock(16, 16);
    dim3 dimGrid((width + 15) / 16, (height + 15) / 16);
    convolution_2D_basic_kernel<<<dimGrid, dimBlock>>>(d_N, d_P, width, height);
    cudaMemcpy(h_P, d_P, bytes, cudaMemcpyDeviceToHost);
    printf("P[100] = %f\n", h_P[100]);

    cudaFree(d_N); cudaFree(d_P);
    free(h_N); free(h_P);
    return 0;
}
