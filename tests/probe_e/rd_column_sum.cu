// style: column sums of a row-major matrix, one thread per column walking down the rows, with host main
// launch: grid cdiv(cols, 128) block 128
// sizes: rows=523 cols=389
// expect: column
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void column_sum(const float *A, float *colsum, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float s = 0.0f;
        for (int r = 0; r < rows; r++)
            s += A[r * cols + c];
        colsum[c] = s;
    }
}

int main()
{
    int rows = 523, cols = 389;
    float *h_A = (float *)malloc(rows * cols * sizeof(float));
    float *h_s = (float *)malloc(cols * sizeof(float));
    for (int i = 0; i < rows * cols; i++) h_A[i] = 1.0f;
    float *d_A, *d_s;
    cudaMalloc(&d_A, rows * cols * sizeof(float));
    cudaMalloc(&d_s, cols * sizeof(float));
    cudaMemcpy(d_A, h_A, rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    column_sum<<<(cols + 127) / 128, 128>>>(d_A, d_s, rows, cols);
    cudaMemcpy(h_s, d_s, cols * sizeof(float), cudaMemcpyDeviceToHost);
    printf("colsum[0] = %f (expect %d)\n", h_s[0], rows);
    cudaFree(d_A); cudaFree(d_s);
    free(h_A); free(h_s);
    return 0;
}
