// style: PMPP ch. 5 tiled matrix multiplication with boundary checks (TILE_WIDTH, Mds/Nds, phases)
// launch: grid cdiv(Width, 16), cdiv(Width, 16) block 16, 16
// sizes: Width=203
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ void matrixMulKernel(float* M, float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the P element to work on
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    // Loop over the M and N tiles required to compute P element
    float Pvalue = 0;
    for (int ph = 0; ph < ceil(Width / (float)TILE_WIDTH); ++ph) {
        // Collaborative loading of M and N tiles into shared memory
        if ((Row < Width) && (ph * TILE_WIDTH + tx) < Width)
            Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0;
        if ((ph * TILE_WIDTH + ty) < Width && Col < Width)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        else
            Nds[ty][tx] = 0;
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k) {
            Pvalue += Mds[ty][k] * Nds[k][tx];
        }
        __syncthreads();
    }
    if ((Row < Width) && (Col < Width))
        P[Row * Width + Col] = Pvalue;
}

void matrixMul(float* M_h, float* N_h, float* P_h, int Width) {
    int size = Width * Width * sizeof(float);
    float *M_d, *N_d, *P_d;

    cudaMalloc((void**)&M_d, size);
    cudaMalloc((void**)&N_d, size);
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice);
    cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice);

    dim3 dimGrid(ceil(Width / (float)TILE_WIDTH), ceil(Width / (float)TILE_WIDTH), 1);
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    matrixMulKernel<<<dimGrid, dimBlock>>>(M_d, N_d, P_d, Width);

    cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
    cudaFree(M_d); cudaFree(N_d); cudaFree(P_d);
}

int main() {
    int Width = 203;
    float *M = (float*)malloc(Width * Width * sizeof(float));
    float *N = (float*)malloc(Width * Width * sizeof(float));
    float *P = (float*)malloc(Width * Width * sizeof(float));
    for (int i = 0; i < Width * Width; i++) { M[i] = 1.0f; N[i] = 2.0f; }
    matrixMul(M, N, P, Width);
    printf("P[0] = %f (expect %f)\n", P[0], 2.0f * Width);
    free(M); free(N); free(P);
    return 0;
}
