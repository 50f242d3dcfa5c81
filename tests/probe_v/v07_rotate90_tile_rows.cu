// style: image library "rotate 90 degrees clockwise" for 8-bit grayscale, copied from the NVIDIA blog transposeNaive (TILE_DIM x BLOCK_ROWS loop, no shared memory) but with the output column flipped (H-1-y) and bounds checks added inside the j loop for non-multiple sizes
// launch: grid cdiv(W, 32), cdiv(H, 32) block 32, 8
// sizes: W=93 H=67
// expect: transpose-tile
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// src is H rows x W cols, dst is W rows x H cols
__global__ void rotate90_cw(unsigned char *dst, const unsigned char *src, int W, int H)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < W && (y + j) < H)
            dst[x * H + (H - 1 - (y + j))] = src[(y + j) * W + x];
    }
}
