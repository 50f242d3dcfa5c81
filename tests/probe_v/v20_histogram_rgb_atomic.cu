// style: image-statistics code computing three 256-bin channel histograms of an RGBA uchar4 image in one pass; grid-stride while loop, three atomicAdd(&hist[ch*256 + value], 1u) calls per pixel straight on global unsigned int bins (no shared/private copies), alpha ignored
// launch: grid cdiv(npix, 256) block 256
// sizes: npix=4093
// expect: private-bins
#include <cuda_runtime.h>

#define NBINS 256

__global__ void histogram_rgb(const uchar4 *img, unsigned int *hist, int npix)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    while (i < npix) {
        uchar4 p = img[i];
        atomicAdd(&hist[0 * NBINS + p.x], 1u);
        atomicAdd(&hist[1 * NBINS + p.y], 1u);
        atomicAdd(&hist[2 * NBINS + p.z], 1u);
        i += stride;
    }
}
