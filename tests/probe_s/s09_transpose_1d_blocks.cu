// style: StackOverflow "why is my transpose slow" question; 2-D grid of 1-D blocks, x = blockIdx.x * blockDim.x + threadIdx.x and y = blockIdx.y only (one row per grid row), unsigned int indices with static_cast<unsigned>(width) in the guard, odata/idata argument order, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(width, 256), height block 256
// sizes: width=301 height=77
// expect: transpose-tile
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void transpose_naive(float *odata, const float *idata, int width, int height)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y;

    if (x < static_cast<unsigned>(width))
        odata[x * height + y] = idata[y * width + x];
}

int main()
{
    const int width = 301, height = 77;
    const size_t bytes = sizeof(float) * width * height;
    float *h_in = (float *)malloc(bytes);
    float *h_out = (float *)malloc(bytes);
    for (int i = 0; i < width * height; ++i) h_in[i] = (float)i;

    float *d_in, *d_out;
    cudaMalloc((void **)&d_in, bytes);
    cudaMalloc((void **)&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);

    dim3 threads(256);
    dim3 grid((width + threads.x - 1) / threads.x, height);
    transpose_naive<<<grid, threads>>>(d_out, d_in, width, height);
    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            if (h_out[x * height + y] != h_in[y * width + x]) ++bad;
    printf("%s\n", bad ? "FAILED" : "PASSED");

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
