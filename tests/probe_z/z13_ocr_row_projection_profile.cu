// style: document-analysis / OCR line segmentation (Leptonica/Tesseract-flavoured naming) horizontal projection profile - u8 typedef, 8-bit grayscale page with a row `step` in bytes (wider than width), one thread per text row walking its row pointer serially and counting ink pixels (p[x] < thresh) into an unsigned int, profile[row] written once; early return for rows past height
// launch: grid cdiv(height, 128) block 128
// sizes: width=301 height=67 step=320 thresh=128
// expect: block-tree|block-atomic|warp-atomic|row-warp|row-block
#include <cuda_runtime.h>
#include <stddef.h>

typedef unsigned char u8;
typedef unsigned int l_uint32;

__global__ void projection_profile_rows(const u8 *page, int width, int height, int step,
                                        int thresh, l_uint32 *profile)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= height)
        return;

    const u8 *line = page + (size_t)row * step;
    l_uint32 ink = 0;
    for (int x = 0; x < width; ++x) {
        if (line[x] < thresh)
            ++ink;
    }
    profile[row] = ink;
}
