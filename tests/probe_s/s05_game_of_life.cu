// style: "Conway's Game of Life in CUDA" blog post; unsigned char cells, i = row from y and j = col from x, edge cells skipped (written dead, no wrap-around), eight neighbour reads spelled out with an up/down/left/right offset naming, rule as (n == 3 || (alive && n == 2)), host main ping-pongs two buffers with cudaMalloc/cudaMemcpy
// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=61 cols=91
// expect: stencil-tile|stencil-window
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void life_step(const unsigned char *board, unsigned char *next, int rows, int cols)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows || j >= cols)
        return;

    int self = i * cols + j;
    if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1) {
        next[self] = 0;
        return;
    }

    int up = self - cols;
    int down = self + cols;
    int n = board[up - 1] + board[up] + board[up + 1]
          + board[self - 1]           + board[self + 1]
          + board[down - 1] + board[down] + board[down + 1];

    unsigned char alive = board[self];
    next[self] = (n == 3 || (alive && n == 2)) ? 1 : 0;
}

int main(void)
{
    const int rows = 61, cols = 91, generations = 10;
    size_t bytes = (size_t)rows * cols;
    unsigned char *h = (unsigned char *)malloc(bytes);
    srand(42);
    for (size_t k = 0; k < bytes; ++k) h[k] = rand() % 4 == 0;

    unsigned char *d_a, *d_b;
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMemcpy(d_a, h, bytes, cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 blocks((cols + 15) / 16, (rows + 15) / 16);
    for (int g = 0; g < generations; ++g) {
        life_step<<<blocks, threads>>>(d_a, d_b, rows, cols);
        unsigned char *t = d_a; d_a = d_b; d_b = t;
    }
    cudaMemcpy(h, d_a, bytes, cudaMemcpyDeviceToHost);

    int live = 0;
    for (size_t k = 0; k < bytes; ++k) live += h[k];
    printf("live cells after %d generations: %d\n", generations, live);

    cudaFree(d_a);
    cudaFree(d_b);
    free(h);
    return 0;
}
