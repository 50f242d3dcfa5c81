// style: NPP-flavoured image primitive (nppiFilterBoxBorder_16f_C1R look-alike) - pSrc/nSrcStep/pDst/nDstStep with the steps in BYTES, row pointers formed by casting through `const Npp8u *`, Npp16f typedef over __half, fixed 3x3 mask with anchor (1,1) averaged in float and stored with __float2half, replicate (clamp) border via min/max on each tap, x/y early return
// launch: grid cdiv(nWidth, 32), cdiv(nHeight, 8) block 32, 8
// sizes: nWidth=45 nHeight=37 nSrcStep=128 nDstStep=96
// expect: stencil-tile|stencil-march|stencil-window
#include <cuda_runtime.h>
#include <cuda_fp16.h>

typedef unsigned char Npp8u;
typedef __half Npp16f;

/* 3x3 box, NPP_BORDER_REPLICATE; nSrcStep / nDstStep are line steps in bytes */
__global__ void FilterBox3x3Replicate_16f_C1R_kernel(const Npp16f *pSrc, int nSrcStep,
                                                      Npp16f *pDst, int nDstStep,
                                                      int nWidth, int nHeight)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nWidth || y >= nHeight)
        return;

    float fSum = 0.0f;
    for (int j = -1; j <= 1; ++j) {
        const int yy = min(max(y + j, 0), nHeight - 1);
        const Npp16f *pSrcLine = (const Npp16f *)((const Npp8u *)pSrc + (size_t)yy * nSrcStep);
        for (int i = -1; i <= 1; ++i) {
            const int xx = min(max(x + i, 0), nWidth - 1);
            fSum += __half2float(pSrcLine[xx]);
        }
    }

    Npp16f *pDstLine = (Npp16f *)((Npp8u *)pDst + (size_t)y * nDstStep);
    pDstLine[x] = __float2half(fSum * (1.0f / 9.0f));
}
