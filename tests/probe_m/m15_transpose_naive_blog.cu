// style: NVIDIA "efficient transpose" blog sample: TILE_DIM/BLOCK_ROWS macros, each thread loops over TILE_DIM/BLOCK_ROWS rows, a copy kernel kept alongside, bounds checks added for non-square W x H; host main
// launch: grid cdiv(W, 32), cdiv(H, 32) block 32, 8
// sizes: W=131 H=67
// kernel: transposeNaive
// expect: transpose-tile|gather
#include <cstdio>
#include <cstdlib>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void copy(float *odata, const float *idata, int W, int H)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  if (x >= W) return;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (y + j < H)
      odata[(y + j) * W + x] = idata[(y + j) * W + x];
}

// idata is H x W, odata is W x H
__global__ void transposeNaive(float *odata, const float *idata, int W, int H)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  if (x >= W) return;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (y + j < H)
      odata[x * H + (y + j)] = idata[(y + j) * W + x];
}

int main(int argc, char **argv)
{
  const int W = 131, H = 67;
  const size_t bytes = W * H * sizeof(float);
  float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
  for (int i = 0; i < W * H; i++) h_in[i] = (float)i;

  float *d_in, *d_out;
  cudaMalloc(&d_in, bytes);
  cudaMalloc(&d_out, bytes);
  cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);

  dim3 dimGrid((W + TILE_DIM - 1) / TILE_DIM, (H + TILE_DIM - 1) / TILE_DIM, 1);
  dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);
  transposeNaive<<<dimGrid, dimBlock>>>(d_out, d_in, W, H);
  cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);

  int bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      if (h_out[x * H + y] != h_in[y * W + x]) bad++;
  printf("%s\n", bad ? "FAILED" : "PASSED");

  cudaFree(d_in); cudaFree(d_out); free(h_in); free(h_out);
  return 0;
}
