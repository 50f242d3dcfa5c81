// ECE408's tiled product: the fills bounded by A's and B's own sizes, the store by C's (ragged sizes agree)
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
