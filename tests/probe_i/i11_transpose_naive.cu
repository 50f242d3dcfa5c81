// style: CUDA course homework naive matrix transpose, row/col from blockIdx.y/x, reads coalesced, writes strided by height
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=301 height=189
// expect: transpose-tile
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_DIM 16

__global__ void transposeNaive(float *odata, const float *idata, int width, int height)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < height && col < width) {
        odata[col * height + row] = idata[row * width + col];
    }
}

int main(int argc, char **argv)
{
    int width = 301;      // columns of input
    int height = 189;     // rows of input
    int mem_size = width * height * sizeof(float);

    float *h_idata = (float *)malloc(mem_size);
    float *h_odata = (float *)malloc(mem_size);
    for (int i = 0; i < width * height; i++) h_idata[i] = (float)i;

    float *d_idata, *d_odata;
    cudaMalloc((void **)&d_idata, mem_size);
    cudaMalloc((void **)&d_odata, mem_size);
    cudaMemcpy(d_idata, h_idata, mem_size, cudaMemcpyHostToDevice);

    dim3 grid((width + BLOCK_DIM - 1) / BLOCK_DIM, (height + BLOCK_DIM - 1) / BLOCK_DIM, 1);
    dim3 threads(BLOCK_DIM, BLOCK_DIM, 1);
    transposeNaive<<<grid, threads>>>(d_odata, d_idata, width, height);
    cudaDeviceSynchronize();

    cudaMemcpy(h_odata, d_odata, mem_size, cudaMemcpyDeviceToHost);

    int ok = 1;
    for (int r = 0; r < height && ok; r++)
        for (int c = 0; c < width; c++)
            if (h_odata[c * height + r] != h_idata[r * width + c]) { ok = 0; break; }
    printf("Test %s\n", ok ? "PASSED" : "FAILED");

    cudaFree(d_idata); cudaFree(d_odata);
    free(h_idata); free(h_odata);
    return 0;
}
