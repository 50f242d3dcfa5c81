// style: first-try matrix transpose from a CUDA course: x on input columns (coalesced read), strided write odata[col*rows + row]
// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=187 cols=141
// expect: transpose-tile
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void transposeNaive(float *odata, const float *idata, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols)
        odata[col * rows + row] = idata[row * cols + col];
}

int main()
{
    const int rows = 187, cols = 141;
    const size_t bytes = rows * cols * sizeof(float);
    float *h_in = (float*)malloc(bytes), *h_out = (float*)malloc(bytes);
    for (int i = 0; i < rows * cols; i++) h_in[i] = (float)i;

    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transposeNaive<<<grid, block>>>(d_out, d_in, rows, cols);
    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (h_out[c * rows + r] != h_in[r * cols + c]) bad++;
    printf("%s\n", bad ? "FAILED" : "PASSED");

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
