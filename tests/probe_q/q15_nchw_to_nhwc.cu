// style: deep-learning framework layout-conversion kernel (NCHW -> NHWC); one thread per input element on a flat size_t index decomposed with / and %, if (!(idx < total)) return; guard, output offset recomposed in NHWC order
// launch: grid cdiv(N*C*H*W, 256) block 256
// sizes: N=3 C=5 H=17 W=19
// expect: transpose-tile

__global__ void nchw_to_nhwc(const float* __restrict__ src, float* __restrict__ dst,
                             int N, int C, int H, int W)
{
    const size_t idx = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t total = static_cast<size_t>(N) * C * H * W;
    if (!(idx < total)) return;

    const int w = static_cast<int>(idx % W);
    const int h = static_cast<int>((idx / W) % H);
    const int c = static_cast<int>((idx / (static_cast<size_t>(W) * H)) % C);
    const int n = static_cast<int>(idx / (static_cast<size_t>(W) * H * C));

    const size_t out = ((static_cast<size_t>(n) * H + h) * W + w) * C + c;
    dst[out] = src[idx];
}
