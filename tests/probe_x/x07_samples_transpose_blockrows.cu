// style: CUDA samples transpose spelling (transposeNaive next to a copy kernel) - TILE_DIM 32 / BLOCK_ROWS 8 so each thread moves TILE_DIM/BLOCK_ROWS elements in an i-loop, index_in/index_out computed once and offset by i*width and i, tail guards on xIndex and yIndex+i added inside the loop
// kernel: transposeNaive
// launch: grid cdiv(width, 32), cdiv(height, 32) block 32, 8
// sizes: width=75 height=53
// expect: transpose-tile
#include <cuda_runtime.h>

// Each block transposes/copies a tile of TILE_DIM x TILE_DIM elements
// using TILE_DIM x BLOCK_ROWS threads, so that each thread transposes
// TILE_DIM/BLOCK_ROWS elements.
#define TILE_DIM   32
#define BLOCK_ROWS 8

// This naive copy kernel is used as the reference for bandwidth
__global__ void copy(float *odata, float *idata, int width, int height)
{
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;

  int index = xIndex + width * yIndex;

  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
  {
    if (xIndex < width && yIndex + i < height)
      odata[index + i * width] = idata[index + i * width];
  }
}

// This naive transpose kernel suffers from completely non-coalesced writes.
// odata is height-wide and width-tall.
__global__ void transposeNaive(float *odata, float *idata, int width, int height)
{
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;

  int index_in  = xIndex + width * yIndex;
  int index_out = yIndex + height * xIndex;

  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
  {
    if (xIndex < width && yIndex + i < height)
      odata[index_out + i] = idata[index_in + i * width];
  }
}
