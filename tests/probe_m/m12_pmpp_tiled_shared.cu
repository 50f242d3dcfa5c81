// style: Coursera/PMPP "matrixMultiplyShared" homework: numARows/numAColumns/... argument list, TILE_WIDTH 16 static shared tiles zero-padded at the edges, one output per thread (no register tile), wbCheck host main
// launch: grid cdiv(numCColumns, 16), cdiv(numCRows, 16) block 16, 16
// sizes: numARows=67 numAColumns=45 numBRows=45 numBColumns=129 numCRows=67 numCColumns=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>

#define TILE_WIDTH 16
#define wbCheck(stmt) do { cudaError_t err = stmt; if (err != cudaSuccess) { \
    printf("Failed: %s\n", cudaGetErrorString(err)); return -1; } } while (0)

__global__ void matrixMultiplyShared(float *A, float *B, float *C,
                                     int numARows, int numAColumns,
                                     int numBRows, int numBColumns,
                                     int numCRows, int numCColumns) {
  __shared__ float subTileA[TILE_WIDTH][TILE_WIDTH];
  __shared__ float subTileB[TILE_WIDTH][TILE_WIDTH];
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int Row = by * TILE_WIDTH + ty;
  int Col = bx * TILE_WIDTH + tx;
  float Pvalue = 0;

  for (int m = 0; m < (numAColumns - 1) / TILE_WIDTH + 1; ++m) {
    if (Row < numARows && m * TILE_WIDTH + tx < numAColumns)
      subTileA[ty][tx] = A[Row * numAColumns + m * TILE_WIDTH + tx];
    else
      subTileA[ty][tx] = 0;
    if (Col < numBColumns && m * TILE_WIDTH + ty < numBRows)
      subTileB[ty][tx] = B[(m * TILE_WIDTH + ty) * numBColumns + Col];
    else
      subTileB[ty][tx] = 0;
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k)
      Pvalue += subTileA[ty][k] * subTileB[k][tx];
    __syncthreads();
  }
  if (Row < numCRows && Col < numCColumns)
    C[Row * numCColumns + Col] = Pvalue;
}

int main(void) {
  int numARows = 67, numAColumns = 45, numBRows = 45, numBColumns = 129;
  int numCRows = numARows, numCColumns = numBColumns;
  size_t szA = numARows * numAColumns * sizeof(float), szB = numBRows * numBColumns * sizeof(float);
  size_t szC = numCRows * numCColumns * sizeof(float);
  float *hostA = (float *)malloc(szA), *hostB = (float *)malloc(szB), *hostC = (float *)malloc(szC);
  for (int i = 0; i < numARows * numAColumns; i++) hostA[i] = (float)(rand() % 100) / 100.0f;
  for (int i = 0; i < numBRows * numBColumns; i++) hostB[i] = (float)(rand() % 100) / 100.0f;

  float *deviceA, *deviceB, *deviceC;
  wbCheck(cudaMalloc((void **)&deviceA, szA));
  wbCheck(cudaMalloc((void **)&deviceB, szB));
  wbCheck(cudaMalloc((void **)&deviceC, szC));
  wbCheck(cudaMemcpy(deviceA, hostA, szA, cudaMemcpyHostToDevice));
  wbCheck(cudaMemcpy(deviceB, hostB, szB, cudaMemcpyHostToDevice));

  dim3 dimGrid((numCColumns - 1) / TILE_WIDTH + 1, (numCRows - 1) / TILE_WIDTH + 1, 1);
  dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
  matrixMultiplyShared<<<dimGrid, dimBlock>>>(deviceA, deviceB, deviceC, numARows, numAColumns,
                                              numBRows, numBColumns, numCRows, numCColumns);
  wbCheck(cudaDeviceSynchronize());
  wbCheck(cudaMemcpy(hostC, deviceC, szC, cudaMemcpyDeviceToHost));
  printf("C[0] = %f\n", hostC[0]);

  cudaFree(deviceA); cudaFree(deviceB); cudaFree(deviceC);
  free(hostA); free(hostB); free(hostC);
  return 0;
}
