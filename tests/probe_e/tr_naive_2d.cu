// style: textbook naive transpose (x = column, y = row; coalesced read, strided write), host main
// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=373 cols=291
// expect: transpose-tile
#include <stdio.h>
#include <stdlib.h>

__global__ void transpose_naive(float *out, const float *in, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows)
        out[x * rows + y] = in[y * cols + x];
}

int main()
{
    int rows = 373, cols = 291;
    size_t bytes = (size_t)rows * cols * sizeof(float);
    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    for (int i = 0; i < rows * cols; i++) h_in[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
    dim3 block(16, 16);
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);
    transpose_naive<<<grid, block>>>(d_out, d_in, rows, cols);
    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (h_out[c * rows + r] != h_in[r * cols + c]) bad++;
    printf("%s\n", bad ? "FAIL" : "PASS");
    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
