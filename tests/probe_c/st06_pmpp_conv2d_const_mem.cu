// launch: grid cdiv(width, 32), cdiv(height, 32) block 32, 32
// sizes: width=900 height=600
// expect: stencil-tile
// 2-D convolution with a 5x5 filter in __constant__ memory and ghost-cell checks (PMPP 4th ed. convolution_2D_const_mem_kernel)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define FILTER_RADIUS 2
__constant__ float F[2*FILTER_RADIUS+1][2*FILTER_RADIUS+1];

__global__ void convolution_2D_const_mem_kernel(float *N, float *P, int width, int height) {
    int outCol = blockIdx.x*blockDim.x + threadIdx.x;
    int outRow = blockIdx.y*blockDim.y + threadIdx.y;
    if (outCol >= width || outRow >= height) return;
    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < 2*FILTER_RADIUS+1; fRow++) {
        for (int fCol = 0; fCol < 2*FILTER_RADIUS+1; fCol++) {
            int inRow = outRow - FILTER_RADIUS + fRow;
            int inCol = outCol - FILTER_RADIUS + fCol;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                Pvalue += F[fRow][fCol]*N[inRow*width + inCol];
            }
        }
    }
    P[outRow*width + outCol] = Pvalue;
}

int main() {
    const int width = 900, height = 600;
    size_t bytes = (size_t)width * height * sizeof(float);

    float h_F[2*FILTER_RADIUS+1][2*FILTER_RADIUS+1];
    for (int i = 0; i < 2*FILTER_RADIUS+1; i++)
        for (int j = 0; j < 2*FILTER_RADIUS+1; j++)
            h_F[i][j] = 1.0f / ((2*FILTER_RADIUS+1)*(2*FILTER_RADIUS+1));

    float *h_N = (float*)malloc(bytes);
    float *h_P = (float*)malloc(bytes);
    for (int i = 0; i < width*height; i++) h_N[i] = rand() % 16;

    float *d_N, *d_P;
    cudaMalloc(&d_N, bytes);
    cudaMalloc(&d_P, bytes);
    cudaMemcpy(d_N, h_N, bytes, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(F, h_F, sizeof(h_F));

    dim3 dimBlock(32, 32);
    dim3 dimGrid((width + 31) / 32, (height + 31) / 32);
    convolution_2D_const_mem_kernel<<<dimGrid, dimBlock>>>(d_N, d_P, width, height);
    cudaMemcpy(h_P, d_P, bytes, cudaMemcpyDeviceToHost);

    printf("P[0] = %f\n", h_P[0]);
    cudaFree(d_N); cudaFree(d_P);
    free(h_N); free(h_P);
    return 0;
}
