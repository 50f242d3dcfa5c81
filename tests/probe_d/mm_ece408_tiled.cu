// launch: grid cdiv(numCColumns, 16), cdiv(numCRows, 16) block 16, 16
// sizes: numARows=330 numAColumns=190 numBRows=190 numBColumns=250 numCRows=330 numCColumns=250
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// ECE408 MP "tiled matrix multiplication": 16x16 shared-memory tiles, one output per thread, boundary checks
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Compute C = A * B
__global__ void matrixMultiplyShared(float *A, float *B, float *C,
                                     int numARows, int numAColumns,
                                     int numBRows, int numBColumns,
                                     int numCRows, int numCColumns) {
  __shared__ float subTileA[TILE_WIDTH][TILE_WIDTH];
  __shared__ float subTileB[TILE_WIDTH][TILE_WIDTH];

  int bx = blockIdx.x;  int by = blockIdx.y;
  int tx = threadIdx.x; int ty = threadIdx.y;

  int Row = by * TILE_WIDTH + ty;
  int Col = bx * TILE_WIDTH + tx;
  float Cvalue = 0.0;

  for (int m = 0; m < (numAColumns - 1) / TILE_WIDTH + 1; ++m) {
    if (Row < numARows && m * TILE_WIDTH + tx < numAColumns)
      subTileA[ty][tx] = A[Row * numAColumns + m * TILE_WIDTH + tx];
    else
      subTileA[ty][tx] = 0;
    if (Col < numBColumns && m * TILE_WIDTH + ty < numBRows)
      subTileB[ty][tx] = B[(m * TILE_WIDTH + ty) * numBColumns + Col];
    else
      subTileB[ty][tx] = 0;

    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k)
      Cvalue += subTileA[ty][k] * subTileB[k][tx];
    __syncthreads();
  }
  if (Row < numCRows && Col < numCColumns)
    C[Row * numCColumns + Col] = Cvalue;
}
