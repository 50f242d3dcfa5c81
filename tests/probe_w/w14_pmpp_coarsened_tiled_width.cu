// style: PMPP (4th ed.) thread-coarsened tiled matrixMulKernel for square Width x Width matrices: #define TILE_WIDTH 16 and COARSE_FACTOR 4, Mds/Nds shared tiles, each thread keeps Pvalue[COARSE_FACTOR] for columns colStart + c*TILE_WIDTH while reusing one Mds tile per phase; phase count rounded up and boundary checks added for Width not a multiple of TILE_WIDTH
// launch: grid cdiv(Width, 64), cdiv(Width, 16) block 16, 16
// sizes: Width=99
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define COARSE_FACTOR 4

__global__ void matrixMulKernel(float* M, float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the P element to work on
    int row = by*TILE_WIDTH + ty;
    int colStart = bx*TILE_WIDTH*COARSE_FACTOR + tx;

    // Initialize Pvalue for all output elements
    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        Pvalue[c] = 0.0f;
    }

    // Loop over the M and N tiles required to compute P element
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1)/TILE_WIDTH; ++ph) {

        // Collaborative loading of M tile into shared memory
        if (row < Width && ph*TILE_WIDTH + tx < Width)
            Mds[ty][tx] = M[row*Width + ph*TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0.0f;

        for (int c = 0; c < COARSE_FACTOR; ++c) {

            int col = colStart + c*TILE_WIDTH;

            // Collaborative loading of N tile into shared memory
            if (ph*TILE_WIDTH + ty < Width && col < Width)
                Nds[ty][tx] = N[(ph*TILE_WIDTH + ty)*Width + col];
            else
                Nds[ty][tx] = 0.0f;
            __syncthreads();

            for (int k = 0; k < TILE_WIDTH; ++k) {
                Pvalue[c] += Mds[ty][k]*Nds[k][tx];
            }
            __syncthreads();
        }
    }

    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int col = colStart + c*TILE_WIDTH;
        if (row < Width && col < Width)
            P[row*Width + col] = Pvalue[c];
    }
}

void matrixMul(float* M_d, float* N_d, float* P_d, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    dim3 dimGrid((Width + TILE_WIDTH*COARSE_FACTOR - 1)/(TILE_WIDTH*COARSE_FACTOR),
                 (Width + TILE_WIDTH - 1)/TILE_WIDTH, 1);
    matrixMulKernel<<<dimGrid, dimBlock>>>(M_d, N_d, P_d, Width);
}
