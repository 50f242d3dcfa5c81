// style: image-processing tutorial -- 5x5 literal weights in __constant__, __device__ fetch helper doing zero padding, (x,y) image coordinates
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=131 height=67
// expect: stencil-tile|stencil-window|stencil-march
#include <cuda_runtime.h>

#define KR 2          /* kernel radius */
#define KW (2 * KR + 1)

__constant__ float c_weights[KW * KW] = {
    1.f / 273,  4.f / 273,  7.f / 273,  4.f / 273, 1.f / 273,
    4.f / 273, 16.f / 273, 26.f / 273, 16.f / 273, 4.f / 273,
    7.f / 273, 26.f / 273, 41.f / 273, 26.f / 273, 7.f / 273,
    4.f / 273, 16.f / 273, 26.f / 273, 16.f / 273, 4.f / 273,
    1.f / 273,  4.f / 273,  7.f / 273,  4.f / 273, 1.f / 273,
};

__device__ __forceinline__ float fetch(const float *img, int x, int y, int w, int h)
{
    if (x < 0 || y < 0 || x >= w || y >= h)
        return 0.0f;
    return img[y * w + x];
}

__global__ void gaussian5x5(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    float acc = 0.0f;
    for (int dy = -KR; dy <= KR; ++dy)
        for (int dx = -KR; dx <= KR; ++dx)
            acc += c_weights[(dy + KR) * KW + (dx + KR)] * fetch(in, x + dx, y + dy, width, height);
    out[y * width + x] = acc;
}
