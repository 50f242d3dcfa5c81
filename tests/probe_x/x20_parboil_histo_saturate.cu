// style: Parboil histo spelling - img/histo/img_width/img_height/histo_width/histo_height names, unsigned int pixel values used directly as bin indices (checked against histo_width*histo_height), naive 2-D-grid kernel doing one global atomicAdd per pixel into 32-bit bins, then a second kernel saturating to UINT8_MAX into the unsigned char histogram like the CPU reference `if (histo[value] < UINT8_MAX) ++histo[value]`
// kernel: histo_main_naive
// launch: grid cdiv(img_width, 32), cdiv(img_height, 8) block 32, 8
// sizes: img_width=97 img_height=63 histo_width=31 histo_height=17
// expect: private-bins
#include <stdint.h>
#include <cuda_runtime.h>

#ifndef UINT8_MAX
#define UINT8_MAX 255
#endif

__global__ void histo_main_naive(const unsigned int* img,
                                 unsigned int* histo32,
                                 int img_width, int img_height,
                                 int histo_width, int histo_height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x < img_width && y < img_height)
    {
        const unsigned int value = img[y * img_width + x];
        if (value < (unsigned int)(histo_width * histo_height))
            atomicAdd(&histo32[value], 1U);
    }
}

__global__ void histo_final_kernel(const unsigned int* histo32,
                                   unsigned char* histo,
                                   int histo_width, int histo_height)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < histo_width * histo_height)
    {
        unsigned int v = histo32[i];
        histo[i] = (unsigned char)(v < UINT8_MAX ? v : UINT8_MAX);
    }
}
