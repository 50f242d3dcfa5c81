// style: UIUC ECE408 MP "basic matrix multiplication" (numARows/numAColumns/... arguments, wbCheck macro), host main
// launch: grid cdiv(numCColumns, 16), cdiv(numCRows, 16) block 16, 16
// sizes: numARows=201 numAColumns=117 numBRows=117 numBColumns=163 numCRows=201 numCColumns=163
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>

#define wbCheck(stmt)                                                     \
  do {                                                                    \
    cudaError_t err = stmt;                                               \
    if (err != cudaSuccess) {                                             \
      printf("Failed to run stmt %s\n", #stmt);                           \
      return -1;                                                          \
    }                                                                     \
  } while (0)

// Compute C = A * B
__global__ void matrixMultiply(float *A, float *B, float *C, int numARows,
                               int numAColumns, int numBRows,
                               int numBColumns, int numCRows,
                               int numCColumns) {
  //@@ Insert code to implement matrix multiplication here
  int Row = blockIdx.y * blockDim.y + threadIdx.y;
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  if ((Row < numCRows) && (Col < numCColumns)) {
    float Cvalue = 0.0;
    for (int k = 0; k < numAColumns; ++k)
      Cvalue += A[Row * numAColumns + k] * B[k * numBColumns + Col];
    C[Row * numCColumns + Col] = Cvalue;
  }
}

int main(int argc, char **argv) {
  float *hostA, *hostB, *hostC;
  float *deviceA, *deviceB, *deviceC;
  int numARows = 201, numAColumns = 117;
  int numBRows = 117, numBColumns = 163;
  int numCRows, numCColumns;

  hostA = (float *)malloc(numARows * numAColumns * sizeof(float));
  hostB = (float *)malloc(numBRows * numBColumns * sizeof(float));
  for (int i = 0; i < numARows * numAColumns; i++) hostA[i] = 1.0f;
  for (int i = 0; i < numBRows * numBColumns; i++) hostB[i] = 2.0f;
  //@@ Set numCRows and numCColumns
  numCRows = numARows;
  numCColumns = numBColumns;
  //@@ Allocate the hostC matrix
  hostC = (float *)malloc(numCRows * numCColumns * sizeof(float));

  //@@ Allocate GPU memory here
  wbCheck(cudaMalloc((void **)&deviceA, numARows * numAColumns * sizeof(float)));
  wbCheck(cudaMalloc((void **)&deviceB, numBRows * numBColumns * sizeof(float)));
  wbCheck(cudaMalloc((void **)&deviceC, numCRows * numCColumns * sizeof(float)));

  //@@ Copy memory to the GPU here
  wbCheck(cudaMemcpy(deviceA, hostA, numARows * numAColumns * sizeof(float), cudaMemcpyHostToDevice));
  wbCheck(cudaMemcpy(deviceB, hostB, numBRows * numBColumns * sizeof(float), cudaMemcpyHostToDevice));

  //@@ Initialize the grid and block dimensions here
  dim3 DimGrid((numCColumns - 1) / 16 + 1, (numCRows - 1) / 16 + 1, 1);
  dim3 DimBlock(16, 16, 1);

  //@@ Launch the GPU Kernel here
  matrixMultiply<<<DimGrid, DimBlock>>>(deviceA, deviceB, deviceC, numARows,
                                        numAColumns, numBRows, numBColumns,
                                        numCRows, numCColumns);
  cudaDeviceSynchronize();

  //@@ Copy the GPU memory back to the CPU here
  wbCheck(cudaMemcpy(hostC, deviceC, numCRows * numCColumns * sizeof(float), cudaMemcpyDeviceToHost));

  //@@ Free the GPU memory here
  cudaFree(deviceA);
  cudaFree(deviceB);
  cudaFree(deviceC);

  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
