// launch: grid cdiv(numCColumns, 16), cdiv(numCRows, 16) block 16, 16
// sizes: numARows=300 numAColumns=210 numBRows=210 numBColumns=260 numCRows=300 numCColumns=260
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// ECE408 MP "basic matrix multiplication": one thread per C element, wb-style host code
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define wbCheck(stmt)                                                     \
  do {                                                                    \
    cudaError_t err = stmt;                                               \
    if (err != cudaSuccess) {                                             \
      fprintf(stderr, "Failed to run stmt %s\n", #stmt);                  \
      fprintf(stderr, "Got CUDA error ...  %s\n", cudaGetErrorString(err)); \
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
    float Pvalue = 0;
    for (int k = 0; k < numAColumns; ++k) {
      Pvalue += A[Row * numAColumns + k] * B[k * numBColumns + Col];
    }
    C[Row * numCColumns + Col] = Pvalue;
  }
}

int main(int argc, char **argv) {
  float *hostA, *hostB, *hostC;
  float *deviceA, *deviceB, *deviceC;
  int numARows = 300, numAColumns = 210;
  int numBRows = 210, numBColumns = 260;
  int numCRows, numCColumns;

  numCRows = numARows;
  numCColumns = numBColumns;
  hostA = (float *)malloc(numARows * numAColumns * sizeof(float));
  hostB = (float *)malloc(numBRows * numBColumns * sizeof(float));
  hostC = (float *)malloc(numCRows * numCColumns * sizeof(float));
  for (int i = 0; i < numARows * numAColumns; i++) hostA[i] = (float)(i % 7) * 0.5f;
  for (int i = 0; i < numBRows * numBColumns; i++) hostB[i] = (float)(i % 5) - 2.0f;

  wbCheck(cudaMalloc((void **)&deviceA, numARows * numAColumns * sizeof(float)));
  wbCheck(cudaMalloc((void **)&deviceB, numBRows * numBColumns * sizeof(float)));
  wbCheck(cudaMalloc((void **)&deviceC, numCRows * numCColumns * sizeof(float)));

  wbCheck(cudaMemcpy(deviceA, hostA, numARows * numAColumns * sizeof(float), cudaMemcpyHostToDevice));
  wbCheck(cudaMemcpy(deviceB, hostB, numBRows * numBColumns * sizeof(float), cudaMemcpyHostToDevice));

  //@@ Initialize the grid and block dimensions here
  dim3 dimGrid((numCColumns - 1) / 16 + 1, (numCRows - 1) / 16 + 1, 1);
  dim3 dimBlock(16, 16, 1);

  matrixMultiply<<<dimGrid, dimBlock>>>(deviceA, deviceB, deviceC, numARows,
                                        numAColumns, numBRows, numBColumns,
                                        numCRows, numCColumns);
  cudaDeviceSynchronize();

  wbCheck(cudaMemcpy(hostC, deviceC, numCRows * numCColumns * sizeof(float), cudaMemcpyDeviceToHost));
  printf("C[0] = %f\n", hostC[0]);

  cudaFree(deviceA);
  cudaFree(deviceB);
  cudaFree(deviceC);
  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
