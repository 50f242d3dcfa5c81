// launch: grid cdiv(N*C*H*W, 512) block 512
// sizes: N=4 C=96 H=35 W=37
// expect: transpose-tile
// layout conversion NCHW -> NHWC, one element per thread over the input order with size_t index splitting (deep-learning framework layout-conversion kernel)
#include <cuda_runtime.h>

typedef unsigned int uint;

__global__ void nchw_to_nhwc(const float* src, float* dst, int N, int C, int H, int W)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t total = (size_t)N * C * H * W;
    if (i < total) {
        size_t w = i % W;
        size_t h = (i / W) % H;
        size_t c = (i / ((size_t)W * H)) % C;
        size_t n = i / ((size_t)W * H * C);
        dst[((n * H + h) * W + w) * C + c] = src[i];
    }
}
