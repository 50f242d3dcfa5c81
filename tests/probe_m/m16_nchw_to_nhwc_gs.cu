// style: framework layout-conversion kernel (Caffe2 / ONNX Runtime flavour): size_t grid-stride loop over the NHWC output, index peeled with % and /= into c, w, h, n, then gathered from NCHW
// launch: grid 24 block 256
// sizes: N=3 C=7 H=19 W=23
// expect: transpose-tile|gather

// out-of-place layout change; dst is written in order, src is read with stride H*W
__global__ void nchw_to_nhwc(const float* __restrict__ src,   // N x C x H x W
                             float* __restrict__ dst,         // N x H x W x C
                             int N, int C, int H, int W)
{
    const size_t total = (size_t)N * C * H * W;
    for (size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
         o += (size_t)gridDim.x * blockDim.x) {
        size_t t = o;
        const int c = (int)(t % C); t /= C;
        const int w = (int)(t % W); t /= W;
        const int h = (int)(t % H); t /= H;
        const int n = (int)t;
        dst[o] = src[(((size_t)n * C + c) * H + h) * W + w];
    }
}
