// style: reproducibility-focused numerics code (no FMA contraction); products and sums spelled with the __fmul_rn / __fadd_rn intrinsics, row-major with sizes rowsA/colsA/colsB, host main with cudaMalloc/cudaMemcpy and a CPU reference check using the same non-fused order
// launch: grid cdiv(colsB, 16), cdiv(rowsA, 16) block 16, 16
// sizes: rowsA=67 colsA=45 colsB=93
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void matmul_rn(const float *A, const float *B, float *C,
                          int rowsA, int colsA, int colsB)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rowsA && col < colsB) {
        float sum = 0.0f;
        for (int k = 0; k < colsA; ++k) {
            sum = __fadd_rn(sum, __fmul_rn(A[row * colsA + k], B[k * colsB + col]));
        }
        C[row * colsB + col] = sum;
    }
}

int main()
{
    const int rowsA = 67, colsA = 45, colsB = 93;
    float *hA = new float[rowsA * colsA];
    float *hB = new float[colsA * colsB];
    float *hC = new float[rowsA * colsB];
    for (int i = 0; i < rowsA * colsA; ++i) hA[i] = (float)(i % 17) / 17.0f;
    for (int i = 0; i < colsA * colsB; ++i) hB[i] = (float)(i % 19) / 19.0f - 0.5f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, rowsA * colsA * sizeof(float));
    cudaMalloc(&dB, colsA * colsB * sizeof(float));
    cudaMalloc(&dC, rowsA * colsB * sizeof(float));
    cudaMemcpy(dA, hA, rowsA * colsA * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, colsA * colsB * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((colsB + 15) / 16, (rowsA + 15) / 16);
    matmul_rn<<<grid, block>>>(dA, dB, dC, rowsA, colsA, colsB);
    cudaMemcpy(hC, dC, rowsA * colsB * sizeof(float), cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int r = 0; r < rowsA; ++r)
        for (int c = 0; c < colsB; ++c) {
            volatile float s = 0.0f;
            for (int k = 0; k < colsA; ++k) {
                volatile float p = hA[r * colsA + k] * hB[k * colsB + c];
                s = s + p;
            }
            if (s != hC[r * colsB + c]) ++bad;
        }
    printf("%s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    delete[] hA; delete[] hB; delete[] hC;
    return 0;
}
