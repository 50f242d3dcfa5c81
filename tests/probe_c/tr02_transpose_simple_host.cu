// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=900 cols=700
// expect: transpose-tile
// one element per thread out[c][r] = in[r][c] with a bounds check and a full host driver (typical "CUDA matrix transpose" tutorial code)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLOCK 16

#define CHECK(call)                                                   \
{                                                                     \
    const cudaError_t error = call;                                   \
    if (error != cudaSuccess)                                         \
    {                                                                 \
        printf("Error: %s:%d, ", __FILE__, __LINE__);                 \
        printf("code:%d, reason: %s\n", error, cudaGetErrorString(error)); \
        exit(1);                                                      \
    }                                                                 \
}

__global__ void transpose(float *out, const float *in, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < rows && col < cols)
        out[col * rows + row] = in[row * cols + col];
}

int main(void)
{
    int rows = 900, cols = 700;
    size_t nBytes = rows * cols * sizeof(float);

    float *h_in  = (float *)malloc(nBytes);
    float *h_out = (float *)malloc(nBytes);
    for (int i = 0; i < rows * cols; i++) h_in[i] = (float)i;

    float *d_in, *d_out;
    CHECK(cudaMalloc((void **)&d_in, nBytes));
    CHECK(cudaMalloc((void **)&d_out, nBytes));
    CHECK(cudaMemcpy(d_in, h_in, nBytes, cudaMemcpyHostToDevice));

    dim3 block(BLOCK, BLOCK);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose<<<grid, block>>>(d_out, d_in, rows, cols);
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(h_out, d_out, nBytes, cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (h_out[c * rows + r] != h_in[r * cols + c]) errors++;
    printf("%s\n", errors ? "FAILED" : "PASSED");

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
