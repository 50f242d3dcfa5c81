// The naive transpose of the CUDA samples' style: a 32 x 32 tile per block taken by 32 x 8 threads, each
// thread four rows of it in a loop (TILE x ROWS); the block comes from the loop's step, not the tile.
// expect: in [H, W] in; out [W, H] out; block [32, 8]; grid [cdiv(W, 32), cdiv(H, 32)]
#define TILE 32
#define ROWS 8
__global__ void transpose_rows(float* out, const float* in, int H, int W) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    if (x < W && y + j < H) out[x * H + (y + j)] = in[(y + j) * W + x];
  }
}
