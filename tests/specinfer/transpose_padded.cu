// Tiled transpose through a padded shared tile (the 33-column trick), launched from a host wrapper.
// expect: odata [width, height] out; idata [height, width] in; grid [cdiv(width, 32), cdiv(height, 32)]; block [32, 8]
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && (y + j) < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && (y + j) < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

void transpose_host(float* d_out, const float* d_in, int width, int height) {
  dim3 dimGrid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
  dim3 dimBlock(TILE_DIM, BLOCK_ROWS);
  transpose<<<dimGrid, dimBlock>>>(d_out, d_in, width, height);
}
