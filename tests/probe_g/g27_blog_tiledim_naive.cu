// style: NVIDIA "efficient matrix transpose" blog transposeNaive: TILE_DIM x BLOCK_ROWS threads, each loops j += BLOCK_ROWS over a 32x32 tile, no shared memory; guards added for odd sizes
// launch: grid cdiv(width, 32), cdiv(height, 32) block 32, 8
// sizes: width=1001 height=713
// expect: transpose-tile
#include <stdio.h>
#include <assert.h>
#include <cuda_runtime.h>

const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

inline cudaError_t checkCuda(cudaError_t result)
{
#if defined(DEBUG) || defined(_DEBUG)
  if (result != cudaSuccess) {
    fprintf(stderr, "CUDA Runtime Error: %s\n", cudaGetErrorString(result));
    assert(result == cudaSuccess);
  }
#endif
  return result;
}

// naive transpose; odata is height x width transposed => width x height
__global__ void transposeNaive(float *odata, const float *idata, int width, int height)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && (y + j) < height)
      odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

int main(int argc, char **argv)
{
  const int nx = 1001, ny = 713;
  const int mem_size = nx * ny * sizeof(float);

  dim3 dimGrid((nx + TILE_DIM - 1) / TILE_DIM, (ny + TILE_DIM - 1) / TILE_DIM, 1);
  dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);

  float *h_idata = (float*)malloc(mem_size);
  float *h_tdata = (float*)malloc(mem_size);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++)
      h_idata[j * nx + i] = j * nx + i;

  float *d_idata, *d_tdata;
  checkCuda(cudaMalloc(&d_idata, mem_size));
  checkCuda(cudaMalloc(&d_tdata, mem_size));
  checkCuda(cudaMemcpy(d_idata, h_idata, mem_size, cudaMemcpyHostToDevice));

  transposeNaive<<<dimGrid, dimBlock>>>(d_tdata, d_idata, nx, ny);
  checkCuda(cudaMemcpy(h_tdata, d_tdata, mem_size, cudaMemcpyDeviceToHost));
  printf("t[1] = %f (expect %f)\n", h_tdata[1], h_idata[nx]);

  checkCuda(cudaFree(d_tdata));
  checkCuda(cudaFree(d_idata));
  free(h_idata);
  free(h_tdata);
  return 0;
}
