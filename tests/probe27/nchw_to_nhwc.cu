// launch: grid cdiv(N * C * H * W, 256) block 256
// sizes: N=2 C=24 H=20 W=30
// expect: transpose-tile
// layout conversion NCHW -> NHWC, one thread per input element
__global__ void nchw2nhwc(const float* __restrict__ in, float* __restrict__ out, int N, int C, int H, int W)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int total = N * C * H * W;
    if (i >= total) return;
    int w = i % W;
    int h = (i / W) % H;
    int c = (i / (W * H)) % C;
    int n = i / (W * H * C);
    out[((n * H + h) * W + w) * C + c] = in[i];
}
