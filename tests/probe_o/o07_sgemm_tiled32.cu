// style: Coursera/PMPP "MatrixMulTiled" with TILE_WIDTH 32 shared tiles, zero-padded bounds checks, numARows/numAColumns naming
// launch: grid cdiv(numBColumns, 32), cdiv(numARows, 32) block 32, 32
// sizes: numARows=67 numAColumns=45 numBColumns=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define TILE_WIDTH 32

__global__ void matrixMultiplyShared(float *A, float *B, float *C,
                                     int numARows, int numAColumns, int numBColumns)
{
    __shared__ float subTileA[TILE_WIDTH][TILE_WIDTH];
    __shared__ float subTileB[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Cvalue = 0;

    for (int ph = 0; ph < (numAColumns - 1) / TILE_WIDTH + 1; ++ph) {
        if (Row < numARows && ph * TILE_WIDTH + tx < numAColumns)
            subTileA[ty][tx] = A[Row * numAColumns + ph * TILE_WIDTH + tx];
        else
            subTileA[ty][tx] = 0;
        if (Col < numBColumns && ph * TILE_WIDTH + ty < numAColumns)
            subTileB[ty][tx] = B[(ph * TILE_WIDTH + ty) * numBColumns + Col];
        else
            subTileB[ty][tx] = 0;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Cvalue += subTileA[ty][k] * subTileB[k][tx];
        __syncthreads();
    }
    if (Row < numARows && Col < numBColumns)
        C[Row * numBColumns + Col] = Cvalue;
}

int main(int argc, char **argv)
{
    int numARows = 67, numAColumns = 45, numBColumns = 129;
    size_t sizeA = numARows * numAColumns * sizeof(float);
    size_t sizeB = numAColumns * numBColumns * sizeof(float);
    size_t sizeC = numARows * numBColumns * sizeof(float);
    float *hostA = (float *)malloc(sizeA), *hostB = (float *)malloc(sizeB), *hostC = (float *)malloc(sizeC);
    for (int i = 0; i < numARows * numAColumns; i++) hostA[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < numAColumns * numBColumns; i++) hostB[i] = (float)(i % 5) * 0.5f;

    float *deviceA, *deviceB, *deviceC;
    cudaMalloc((void **)&deviceA, sizeA);
    cudaMalloc((void **)&deviceB, sizeB);
    cudaMalloc((void **)&deviceC, sizeC);
    cudaMemcpy(deviceA, hostA, sizeA, cudaMemcpyHostToDevice);
    cudaMemcpy(deviceB, hostB, sizeB, cudaMemcpyHostToDevice);

    dim3 dimGrid((numBColumns - 1) / TILE_WIDTH + 1, (numARows - 1) / TILE_WIDTH + 1, 1);
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    matrixMultiplyShared<<<dimGrid, dimBlock>>>(deviceA, deviceB, deviceC,
                                                numARows, numAColumns, numBColumns);
    cudaDeviceSynchronize();
    cudaMemcpy(hostC, deviceC, sizeC, cudaMemcpyDeviceToHost);
    printf("C[0][0] = %f\n", hostC[0]);

    cudaFree(deviceA); cudaFree(deviceB); cudaFree(deviceC);
    free(hostA); free(hostB); free(hostC);
    return 0;
}
