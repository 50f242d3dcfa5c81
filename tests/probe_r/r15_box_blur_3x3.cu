// style: image-processing course homework "box blur"; 3x3 neighbourhood unrolled by hand with #define W_C/W_E/W_K weights (all 1/9), x/y from blockIdx/threadIdx, border pixels copied unchanged, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=133 height=75
// expect: stencil-tile|stencil-window
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define W_C (1.0f / 9.0f)
#define W_E (1.0f / 9.0f)
#define W_K (1.0f / 9.0f)

__global__ void boxBlur3x3(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out[y * width + x] = in[y * width + x];
        return;
    }
    float v = W_K * in[(y - 1) * width + (x - 1)]
            + W_E * in[(y - 1) * width + x]
            + W_K * in[(y - 1) * width + (x + 1)]
            + W_E * in[y * width + (x - 1)]
            + W_C * in[y * width + x]
            + W_E * in[y * width + (x + 1)]
            + W_K * in[(y + 1) * width + (x - 1)]
            + W_E * in[(y + 1) * width + x]
            + W_K * in[(y + 1) * width + (x + 1)];
    out[y * width + x] = v;
}

int main(void)
{
    int width = 133, height = 75;
    size_t bytes = (size_t)width * height * sizeof(float);
    float *h_in = (float *)malloc(bytes);
    float *h_out = (float *)malloc(bytes);
    for (int i = 0; i < width * height; i++) h_in[i] = (float)(rand() % 256);

    float *d_in, *d_out;
    cudaMalloc((void **)&d_in, bytes);
    cudaMalloc((void **)&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    boxBlur3x3<<<grid, block>>>(d_in, d_out, width, height);
    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    printf("out[center] = %f\n", h_out[(height / 2) * width + width / 2]);

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
