// b_transpose.cu -- matrix transpose through a shared-memory tile, blocks of 32 x 8.
// Defect: the tile is float[32][32], a row stride of 32 words; the second phase reads it
// down a column (tile[threadIdx.x][...]) so all 32 lanes of a warp hit the same bank: a
// 32-way bank conflict, 32 serialized shared-memory wavefronts per read.
// Found by: shared-bank-conflict (kernelpro.profilers.rules.bank_conflicts).
// Fixed twin: b_transpose_fixed.cu (tile[TILE][TILE + 1]: one word of padding per row).
#define TILE 32
#define BLOCK_ROWS 8

__global__ void transpose(float* __restrict__ out, const float* __restrict__ in, int width, int height) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

void launch_transpose(float* out, const float* in, int width, int height) {
  dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
  transpose<<<grid, dim3(TILE, BLOCK_ROWS)>>>(out, in, width, height);
}
