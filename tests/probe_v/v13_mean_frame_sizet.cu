// style: video background-subtraction code; per-pixel temporal mean over a stack of uchar frames stored frame-major (frames[f*npix + p]), 2-D thread grid over the image turned into a pixel id, size_t offsets, float output, host main
// launch: grid cdiv(width, 32), cdiv(height, 8) block 32, 8
// sizes: width=45 height=29 nframes=17
// expect: column
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void mean_frame(const unsigned char *frames, float *background, int width, int height, int nframes)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    size_t npix = (size_t)width * height;
    size_t p = (size_t)y * width + x;
    unsigned int sum = 0;
    for (int f = 0; f < nframes; ++f)
        sum += frames[(size_t)f * npix + p];
    background[p] = (float)sum / nframes;
}

int main()
{
    const int width = 45, height = 29, nframes = 17;
    const size_t npix = (size_t)width * height;
    unsigned char *h_frames = (unsigned char *)malloc(npix * nframes);
    for (size_t i = 0; i < npix * nframes; ++i) h_frames[i] = (unsigned char)(rand() & 0xff);
    float *h_bg = (float *)malloc(npix * sizeof(float));

    unsigned char *d_frames;
    float *d_bg;
    cudaMalloc(&d_frames, npix * nframes);
    cudaMalloc(&d_bg, npix * sizeof(float));
    cudaMemcpy(d_frames, h_frames, npix * nframes, cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    mean_frame<<<grid, block>>>(d_frames, d_bg, width, height, nframes);
    cudaMemcpy(h_bg, d_bg, npix * sizeof(float), cudaMemcpyDeviceToHost);
    printf("bg[0] = %.3f\n", h_bg[0]);

    cudaFree(d_frames); cudaFree(d_bg);
    free(h_frames); free(h_bg);
    return 0;
}
