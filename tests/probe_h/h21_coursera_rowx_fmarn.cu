// style: Coursera "Heterogeneous Parallel Programming" MP signature (numARows ... numCColumns) with Row from threadIdx.x and __fmaf_rn accumulation
// launch: grid cdiv(numCRows, 16), cdiv(numCColumns, 16) block 16, 16
// sizes: numARows=187 numAColumns=223 numBRows=223 numBColumns=141 numCRows=187 numCColumns=141
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define wbCheck(stmt)                                                      \
    do {                                                                   \
        cudaError_t err = stmt;                                            \
        if (err != cudaSuccess) {                                          \
            printf("Failed to run stmt %s: %s\n", #stmt,                   \
                   cudaGetErrorString(err));                               \
            return -1;                                                     \
        }                                                                  \
    } while (0)

// Compute C = A * B
__global__ void matrixMultiply(float *A, float *B, float *C, int numARows,
                               int numAColumns, int numBRows, int numBColumns,
                               int numCRows, int numCColumns)
{
    int Row = blockIdx.x * blockDim.x + threadIdx.x;
    int Col = blockIdx.y * blockDim.y + threadIdx.y;

    if ((Row < numCRows) && (Col < numCColumns)) {
        float Pvalue = 0;
        for (int k = 0; k < numAColumns; ++k)
            Pvalue = __fmaf_rn(A[Row * numAColumns + k], B[k * numBColumns + Col], Pvalue);
        C[Row * numCColumns + Col] = Pvalue;
    }
}

int main(int argc, char **argv)
{
    int numARows = 187, numAColumns = 223;
    int numBRows = 223, numBColumns = 141;
    int numCRows = numARows, numCColumns = numBColumns;

    float *hostA = (float *)malloc(sizeof(float) * numARows * numAColumns);
    float *hostB = (float *)malloc(sizeof(float) * numBRows * numBColumns);
    float *hostC = (float *)malloc(sizeof(float) * numCRows * numCColumns);
    for (int i = 0; i < numARows * numAColumns; i++) hostA[i] = (float)(i % 10) / 10.0f;
    for (int i = 0; i < numBRows * numBColumns; i++) hostB[i] = (float)(i % 6) / 6.0f;

    float *deviceA, *deviceB, *deviceC;
    wbCheck(cudaMalloc((void **)&deviceA, sizeof(float) * numARows * numAColumns));
    wbCheck(cudaMalloc((void **)&deviceB, sizeof(float) * numBRows * numBColumns));
    wbCheck(cudaMalloc((void **)&deviceC, sizeof(float) * numCRows * numCColumns));
    wbCheck(cudaMemcpy(deviceA, hostA, sizeof(float) * numARows * numAColumns, cudaMemcpyHostToDevice));
    wbCheck(cudaMemcpy(deviceB, hostB, sizeof(float) * numBRows * numBColumns, cudaMemcpyHostToDevice));

    dim3 DimBlock(16, 16, 1);
    dim3 DimGrid((numCRows - 1) / 16 + 1, (numCColumns - 1) / 16 + 1, 1);
    matrixMultiply<<<DimGrid, DimBlock>>>(deviceA, deviceB, deviceC, numARows, numAColumns,
                                          numBRows, numBColumns, numCRows, numCColumns);
    wbCheck(cudaDeviceSynchronize());
    wbCheck(cudaMemcpy(hostC, deviceC, sizeof(float) * numCRows * numCColumns, cudaMemcpyDeviceToHost));

    printf("C[0] = %f\n", hostC[0]);

    cudaFree(deviceA); cudaFree(deviceB); cudaFree(deviceC);
    free(hostA); free(hostB); free(hostC);
    return 0;
}
