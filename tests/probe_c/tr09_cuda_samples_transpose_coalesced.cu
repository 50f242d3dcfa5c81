// launch: grid cdiv(width, 32), cdiv(height, 32) block 32, 8
// sizes: width=800 height=608
// expect: transpose-tile
// transpose through an unpadded 32x32 shared tile (bank conflicts on the column read) (NVIDIA cuda-samples transpose, transposeCoalesced)
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Coalesced transpose with no bank conflict avoidance
__global__ void transposeCoalesced(float *odata, float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + (yIndex)*width;

    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + (yIndex)*height;

    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS)
    {
        tile[threadIdx.y+i][threadIdx.x] = idata[index_in+i*width];
    }

    __syncthreads();

    for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS)
    {
        odata[index_out+i*height] = tile[threadIdx.x][threadIdx.y+i];
    }
}
