// style: PMPP ch.7 convolution_2D_const_mem_kernel (filter F in __constant__ memory, ghost cells skipped), host main
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: r=2 width=311 height=227
// expect: stencil-tile
#include <stdio.h>
#include <stdlib.h>

#define FILTER_RADIUS 2
__constant__ float F[2*FILTER_RADIUS+1][2*FILTER_RADIUS+1];

__global__ void convolution_2D_const_mem_kernel(float *N, float *P, int r, int width, int height) {
    int outCol = blockIdx.x*blockDim.x + threadIdx.x;
    int outRow = blockIdx.y*blockDim.y + threadIdx.y;
    if (outRow >= height || outCol >= width) return;
    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < 2*r+1; fRow++) {
        for (int fCol = 0; fCol < 2*r+1; fCol++) {
            int inRow = outRow - r + fRow;
            int inCol = outCol - r + fCol;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                Pvalue += F[fRow][fCol]*N[inRow*width + inCol];
            }
        }
    }
    P[outRow*width + outCol] = Pvalue;
}

int main() {
    int width = 311, height = 227, r = FILTER_RADIUS;
    float F_h[2*FILTER_RADIUS+1][2*FILTER_RADIUS+1];
    for (int i = 0; i < 2*FILTER_RADIUS+1; i++)
        for (int j = 0; j < 2*FILTER_RADIUS+1; j++)
            F_h[i][j] = 1.0f / ((2*FILTER_RADIUS+1)*(2*FILTER_RADIUS+1));
    cudaMemcpyToSymbol(F, F_h, (2*FILTER_RADIUS+1)*(2*FILTER_RADIUS+1)*sizeof(float));

    size_t bytes = width * height * sizeof(float);
    float *N_h = (float*)malloc(bytes), *P_h = (float*)malloc(bytes);
    for (int i = 0; i < width * height; i++) N_h[i] = (float)(i % 255);
    float *N_d, *P_d;
    cudaMalloc(&N_d, bytes);
    cudaMalloc(&P_d, bytes);
    cudaMemcpy(N_d, N_h, bytes, cudaMemcpyHostToDevice);
    dim3 dimBlock(16, 16);
    dim3 dimGrid((width + 15) / 16, (height + 15) / 16);
    convolution_2D_const_mem_kernel<<<dimGrid, dimBlock>>>(N_d, P_d, r, width, height);
    cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost);
    printf("%f\n", P_h[width + 1]);
    cudaFree(N_d); cudaFree(P_d);
    free(N_h); free(P_h);
    return 0;
}
