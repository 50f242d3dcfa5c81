// launch: grid cdiv(width, 32), cdiv(height, 32) block 32, 8
// sizes: width=800 height=608
// expect: transpose-tile
// naive transpose, each thread copies TILE_DIM/BLOCK_ROWS elements down a column (NVIDIA cuda-samples 6_Performance/transpose, transposeNaive)
#include <cuda_runtime.h>

// Each block transposes/copies a tile of TILE_DIM x TILE_DIM elements
// using TILE_DIM x BLOCK_ROWS threads, so that each thread transposes
// TILE_DIM/BLOCK_ROWS elements.  TILE_DIM must be an integral multiple of BLOCK_ROWS
#define TILE_DIM 32
#define BLOCK_ROWS 8

// This is the naive transpose kernel: reads are coalesced, writes are strided
__global__ void transposeNaive(float *odata, float *idata, int width, int height)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;

    int index_in  = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;

    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS)
    {
        odata[index_out+i] = idata[index_in+i*width];
    }
}
