// style: medical-image registration (mutual-information metric, ITK/NiftyReg-flavoured naming) joint intensity histogram of a fixed and a moving 8-bit slice - 2-D thread grid over (x, y) turned into a voxel index, both intensities rebinned with (value * nbins) >> 8, one atomicAdd(&jointHist[fixedBin * nbins + movingBin], 1u) per pixel straight into global unsigned int bins (nbins*nbins of them, no private copies); host main with CPU reference
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=77 height=59 nbins=32
// expect: private-bins
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

__global__ void jointHistogramKernel(const unsigned char *fixedImage,
                                     const unsigned char *movingImage,
                                     int width, int height, int nbins,
                                     unsigned int *jointHist)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    int voxel = y * width + x;
    int fixedBin = (fixedImage[voxel] * nbins) >> 8;
    int movingBin = (movingImage[voxel] * nbins) >> 8;

    atomicAdd(&jointHist[fixedBin * nbins + movingBin], 1u);
}

int main(void)
{
    const int width = 77, height = 59, nbins = 32;
    const int nvox = width * height;
    unsigned char *fixedImg = (unsigned char *)malloc(nvox);
    unsigned char *movingImg = (unsigned char *)malloc(nvox);
    unsigned int *hist = (unsigned int *)malloc(nbins * nbins * sizeof(unsigned int));
    unsigned int *ref = (unsigned int *)calloc(nbins * nbins, sizeof(unsigned int));

    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            fixedImg[y * width + x] = (unsigned char)((x * 3 + y * 2) & 0xFF);
            /* moving = fixed shifted by two pixels plus noise */
            int xs = x + 2 < width ? x + 2 : width - 1;
            movingImg[y * width + x] = (unsigned char)(((xs * 3 + y * 2) + rand() % 9) & 0xFF);
        }
    for (int v = 0; v < nvox; v++)
        ref[((fixedImg[v] * nbins) >> 8) * nbins + ((movingImg[v] * nbins) >> 8)]++;

    unsigned char *d_fixed, *d_moving;
    unsigned int *d_hist;
    cudaMalloc((void **)&d_fixed, nvox);
    cudaMalloc((void **)&d_moving, nvox);
    cudaMalloc((void **)&d_hist, nbins * nbins * sizeof(unsigned int));
    cudaMemcpy(d_fixed, fixedImg, nvox, cudaMemcpyHostToDevice);
    cudaMemcpy(d_moving, movingImg, nvox, cudaMemcpyHostToDevice);
    cudaMemset(d_hist, 0, nbins * nbins * sizeof(unsigned int));

    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    jointHistogramKernel<<<grid, block>>>(d_fixed, d_moving, width, height, nbins, d_hist);
    cudaMemcpy(hist, d_hist, nbins * nbins * sizeof(unsigned int), cudaMemcpyDeviceToHost);

    int ok = memcmp(hist, ref, nbins * nbins * sizeof(unsigned int)) == 0;
    printf("%s\n", ok ? "PASS" : "FAIL");
    cudaFree(d_fixed); cudaFree(d_moving); cudaFree(d_hist);
    free(fixedImg); free(movingImg); free(hist); free(ref);
    return !ok;
}
