// style: numerics-course exercise "two partial sums for accuracy"; one thread per output, the k loop split at half = K/2 into sum_lo and sum_hi loops summed separately then added, row-major with explicit width names (widthA, widthB), host main with malloc/cudaMalloc/cudaMemcpy and no error checking
// launch: grid cdiv(widthB, 16), cdiv(heightA, 16) block 16, 16
// sizes: heightA=67 widthA=45 widthB=93
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void matmul_split_halves(const float *A, const float *B, float *C,
                                    int heightA, int widthA, int widthB)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= heightA || col >= widthB)
        return;

    int half = widthA / 2;
    float sum_lo = 0.0f;
    float sum_hi = 0.0f;

    for (int k = 0; k < half; k++)
        sum_lo += A[row * widthA + k] * B[k * widthB + col];

    for (int k = half; k < widthA; k++)
        sum_hi += A[row * widthA + k] * B[k * widthB + col];

    C[row * widthB + col] = sum_lo + sum_hi;
}

int main()
{
    int heightA = 67, widthA = 45, widthB = 93;
    size_t sizeA = heightA * widthA * sizeof(float);
    size_t sizeB = widthA * widthB * sizeof(float);
    size_t sizeC = heightA * widthB * sizeof(float);

    float *h_A = (float *)malloc(sizeA);
    float *h_B = (float *)malloc(sizeB);
    float *h_C = (float *)malloc(sizeC);
    for (int i = 0; i < heightA * widthA; i++) h_A[i] = 1.0f / (1 + i % 11);
    for (int i = 0; i < widthA * widthB; i++) h_B[i] = (float)(i % 3);

    float *d_A, *d_B, *d_C;
    cudaMalloc(&d_A, sizeA);
    cudaMalloc(&d_B, sizeB);
    cudaMalloc(&d_C, sizeC);
    cudaMemcpy(d_A, h_A, sizeA, cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, h_B, sizeB, cudaMemcpyHostToDevice);

    dim3 dimBlock(16, 16);
    dim3 dimGrid((widthB + dimBlock.x - 1) / dimBlock.x,
                 (heightA + dimBlock.y - 1) / dimBlock.y);
    matmul_split_halves<<<dimGrid, dimBlock>>>(d_A, d_B, d_C, heightA, widthA, widthB);

    cudaMemcpy(h_C, d_C, sizeC, cudaMemcpyDeviceToHost);
    printf("C[0] = %f\n", h_C[0]);

    cudaFree(d_A); cudaFree(d_B); cudaFree(d_C);
    free(h_A); free(h_B); free(h_C);
    return 0;
}
