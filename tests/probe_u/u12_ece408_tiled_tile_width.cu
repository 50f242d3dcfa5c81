// style: ECE408/PMPP machine-problem tiled matrix multiply with #define TILE_WIDTH 16, the 9-argument MP signature (numARows, numAColumns, numBRows, numBColumns, numCRows, numCColumns), __shared__ subTileM/subTileN with zero padding for out-of-range tails and __syncthreads, no register tiling; host main with cudaEvent timing and a CPU check
// launch: grid cdiv(numCColumns, 16), cdiv(numCRows, 16) block 16, 16
// sizes: numARows=67 numAColumns=45 numBRows=45 numBColumns=93 numCRows=67 numCColumns=93
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Compute C = A * B
__global__ void matrixMultiplyShared(float *A, float *B, float *C,
                                     int numARows, int numAColumns,
                                     int numBRows, int numBColumns,
                                     int numCRows, int numCColumns)
{
    __shared__ float subTileM[TILE_WIDTH][TILE_WIDTH];
    __shared__ float subTileN[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;

    for (int m = 0; m < (numAColumns - 1) / TILE_WIDTH + 1; ++m) {
        if (Row < numARows && m * TILE_WIDTH + tx < numAColumns)
            subTileM[ty][tx] = A[Row * numAColumns + m * TILE_WIDTH + tx];
        else
            subTileM[ty][tx] = 0;
        if (Col < numBColumns && m * TILE_WIDTH + ty < numBRows)
            subTileN[ty][tx] = B[(m * TILE_WIDTH + ty) * numBColumns + Col];
        else
            subTileN[ty][tx] = 0;

        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += subTileM[ty][k] * subTileN[k][tx];
        __syncthreads();
    }

    if (Row < numCRows && Col < numCColumns)
        C[Row * numCColumns + Col] = Pvalue;
}

int main(int argc, char **argv)
{
    int numARows = 67, numAColumns = 45;
    int numBRows = 45, numBColumns = 93;
    int numCRows = numARows, numCColumns = numBColumns;

    float *hostA = (float *)malloc(numARows * numAColumns * sizeof(float));
    float *hostB = (float *)malloc(numBRows * numBColumns * sizeof(float));
    float *hostC = (float *)malloc(numCRows * numCColumns * sizeof(float));
    for (int i = 0; i < numARows * numAColumns; i++) hostA[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < numBRows * numBColumns; i++) hostB[i] = (float)(i % 5) * 0.25f;

    float *deviceA, *deviceB, *deviceC;
    cudaMalloc((void **)&deviceA, numARows * numAColumns * sizeof(float));
    cudaMalloc((void **)&deviceB, numBRows * numBColumns * sizeof(float));
    cudaMalloc((void **)&deviceC, numCRows * numCColumns * sizeof(float));

    cudaMemcpy(deviceA, hostA, numARows * numAColumns * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(deviceB, hostB, numBRows * numBColumns * sizeof(float), cudaMemcpyHostToDevice);

    dim3 DimGrid((numCColumns - 1) / TILE_WIDTH + 1, (numCRows - 1) / TILE_WIDTH + 1, 1);
    dim3 DimBlock(TILE_WIDTH, TILE_WIDTH, 1);

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    matrixMultiplyShared<<<DimGrid, DimBlock>>>(deviceA, deviceB, deviceC,
                                                numARows, numAColumns,
                                                numBRows, numBColumns,
                                                numCRows, numCColumns);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    printf("Performing CUDA computation: %.3f ms\n", ms);

    cudaMemcpy(hostC, deviceC, numCRows * numCColumns * sizeof(float), cudaMemcpyDeviceToHost);

    int wrong = 0;
    for (int i = 0; i < numCRows; i++)
        for (int j = 0; j < numCColumns; j++) {
            float s = 0;
            for (int k = 0; k < numAColumns; k++)
                s += hostA[i * numAColumns + k] * hostB[k * numBColumns + j];
            if (fabsf(s - hostC[i * numCColumns + j]) > 1e-3f) wrong++;
        }
    printf("Solution %s\n", wrong ? "is NOT correct" : "is correct");

    cudaFree(deviceA); cudaFree(deviceB); cudaFree(deviceC);
    free(hostA); free(hostB); free(hostC);
    return 0;
}
