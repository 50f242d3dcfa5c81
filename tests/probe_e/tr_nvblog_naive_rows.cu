// style: NVIDIA blog "efficient matrix transpose" transposeNaive (TILE_DIM 32, BLOCK_ROWS 8 loop) with bounds for any size
// launch: grid cdiv(width, 32), cdiv(height, 32) block 32, 8
// sizes: width=331 height=277
// expect: transpose-tile
#include <cstdio>
#include <cuda_runtime.h>

const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

// idata is height x width, odata is width x height
__global__ void transposeNaive(float *odata, const float *idata, int width, int height)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && (y + j) < height)
      odata[x*height + (y+j)] = idata[(y+j)*width + x];
}

int main(int argc, char **argv)
{
  const int width = 331, height = 277;
  const int mem_size = width * height * sizeof(float);
  dim3 dimGrid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM, 1);
  dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);

  float *h_idata = (float*)malloc(mem_size);
  float *h_tdata = (float*)malloc(mem_size);
  for (int j = 0; j < height; j++)
    for (int i = 0; i < width; i++)
      h_idata[j*width + i] = j*width + i;

  float *d_idata, *d_tdata;
  cudaMalloc(&d_idata, mem_size);
  cudaMalloc(&d_tdata, mem_size);
  cudaMemcpy(d_idata, h_idata, mem_size, cudaMemcpyHostToDevice);

  transposeNaive<<<dimGrid, dimBlock>>>(d_tdata, d_idata, width, height);
  cudaMemcpy(h_tdata, d_tdata, mem_size, cudaMemcpyDeviceToHost);
  printf("%f\n", h_tdata[1]);

  cudaFree(d_tdata); cudaFree(d_idata);
  free(h_idata); free(h_tdata);
  return 0;
}
