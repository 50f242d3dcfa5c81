// style: ECE408 lab convolution_2D_basic_kernel; mask in __constant__ M[MASK_WIDTH][MASK_WIDTH], capitalised Row/Col from TILE_WIDTH instead of blockDim, ghost cells skipped with "> -1" tests, cudaMemcpyToSymbol in main()
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: height=61 width=257
// expect: stencil-tile|stencil-window
#include <stdio.h>
#include <stdlib.h>

#define MASK_WIDTH 3
#define MASK_RADIUS (MASK_WIDTH / 2)
#define TILE_WIDTH 16

__constant__ float M[MASK_WIDTH][MASK_WIDTH];

__global__ void convolution_2D_basic_kernel(float *N, float *P, int height, int width)
{
  int Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
  int Row = blockIdx.y * TILE_WIDTH + threadIdx.y;

  if (Row < height && Col < width) {
    float Pvalue = 0.0f;
    int N_start_row = Row - MASK_RADIUS;
    int N_start_col = Col - MASK_RADIUS;
    for (int j = 0; j < MASK_WIDTH; j++) {
      for (int k = 0; k < MASK_WIDTH; k++) {
        int curRow = N_start_row + j;
        int curCol = N_start_col + k;
        if (curRow > -1 && curRow < height && curCol > -1 && curCol < width) {
          Pvalue += N[curRow * width + curCol] * M[j][k];
        }
      }
    }
    P[Row * width + Col] = Pvalue;
  }
}

int main(void)
{
  int height = 61, width = 257;
  int size = height * width * sizeof(float);
  float hostMask[MASK_WIDTH * MASK_WIDTH] = {0.0625f, 0.125f, 0.0625f,
                                             0.125f,  0.25f,  0.125f,
                                             0.0625f, 0.125f, 0.0625f};
  float *hostN = (float *)malloc(size);
  float *hostP = (float *)malloc(size);
  for (int i = 0; i < height * width; i++) hostN[i] = (float)(i % 17);

  float *deviceN, *deviceP;
  cudaMalloc((void **)&deviceN, size);
  cudaMalloc((void **)&deviceP, size);
  cudaMemcpy(deviceN, hostN, size, cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(M, hostMask, MASK_WIDTH * MASK_WIDTH * sizeof(float));

  dim3 dimGrid((width - 1) / TILE_WIDTH + 1, (height - 1) / TILE_WIDTH + 1, 1);
  dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
  convolution_2D_basic_kernel<<<dimGrid, dimBlock>>>(deviceN, deviceP, height, width);
  cudaDeviceSynchronize();

  cudaMemcpy(hostP, deviceP, size, cudaMemcpyDeviceToHost);
  printf("P[0] = %f\n", hostP[0]);

  cudaFree(deviceN); cudaFree(deviceP);
  free(hostN); free(hostP);
  return 0;
}
