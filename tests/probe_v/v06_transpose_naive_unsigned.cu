// style: forum-post naive out-of-place transpose of a rows x cols matrix; unsigned int row/col indices, IDX2() row-major macro taking the leading dimension, reads coalesced along a row and writes strided down a column, host main with a CPU check
// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=67 cols=93
// expect: transpose-tile
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define IDX2(r, c, ld) ((r) * (ld) + (c))
#define BLOCK_DIM 16

__global__ void transpose(float *odata, const float *idata, unsigned int rows, unsigned int cols)
{
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < rows && col < cols)
        odata[IDX2(col, row, rows)] = idata[IDX2(row, col, cols)];
}

int main()
{
    unsigned int rows = 67, cols = 93;
    size_t bytes = rows * cols * sizeof(float);
    float *a = (float *)malloc(bytes), *at = (float *)malloc(bytes);
    for (unsigned int i = 0; i < rows * cols; i++) a[i] = (float)i;

    float *d_a, *d_at;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_at, bytes);
    cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);

    dim3 block(BLOCK_DIM, BLOCK_DIM);
    dim3 grid((cols + BLOCK_DIM - 1) / BLOCK_DIM, (rows + BLOCK_DIM - 1) / BLOCK_DIM);
    transpose<<<grid, block>>>(d_at, d_a, rows, cols);
    cudaMemcpy(at, d_at, bytes, cudaMemcpyDeviceToHost);

    int errors = 0;
    for (unsigned int r = 0; r < rows; r++)
        for (unsigned int c = 0; c < cols; c++)
            if (at[c * rows + r] != a[r * cols + c]) errors++;
    printf("%s (%d errors)\n", errors ? "FAILED" : "PASSED", errors);

    cudaFree(d_a); cudaFree(d_at); free(a); free(at);
    return errors != 0;
}
