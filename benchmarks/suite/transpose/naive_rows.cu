// Transpose by tiles without shared memory: a TILE x ROWS block covers a TILE x TILE tile, each
// thread stepping down the tile ROWS rows at a time.
#define TILE 32
#define ROWS 8

__global__ void transpose(float* out, const float* inp, int H, int W) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    if (x < W && y + j < H) {
      out[x * H + (y + j)] = inp[(y + j) * W + x];
    }
  }
}
