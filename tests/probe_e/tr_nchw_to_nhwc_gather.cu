// style: layout-conversion helper from an inference engine (NCHW -> NHWC, thread per output element, contiguous writes)
// launch: grid cdiv(N * C * H * W, 256) block 256
// sizes: N=2 C=67 H=29 W=31
// expect: transpose-tile|gather
#include <cuda_runtime.h>

__global__ void nchw_to_nhwc_kernel(const float *__restrict__ in, float *__restrict__ out,
                                    int N, int C, int H, int W)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = N * C * H * W;
    if (idx >= total) return;
    // idx enumerates the NHWC output
    int c = idx % C;
    int w = (idx / C) % W;
    int h = (idx / (C * W)) % H;
    int n = idx / (C * W * H);
    out[idx] = in[((n * C + c) * H + h) * W + w];
}
