// launch: grid cdiv(width, 32), cdiv(height, 32) block 32, 16
// sizes: width=1024 height=512
// expect: transpose-tile
// CUDA samples transpose (6_Advanced), simple copy's naive sibling with TILE_DIM x BLOCK_ROWS
#define TILE_DIM 32
#define BLOCK_ROWS 16

__global__ void transposeNaive(float *odata, float *idata, int width, int height)
{
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;

  int index_in = xIndex + width * yIndex;
  int index_out = yIndex + height * xIndex;

  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i] = idata[index_in + i * width];
  }
}
