// style: Caffe/Darknet CUDA_KERNEL_LOOP grid-stride macro redone with size_t; output-side NCHW index peeled by % and /, channel-innermost NHWC gather
// launch: grid cdiv(N * C * H * W, 512) block 512
// sizes: N=3 C=13 H=17 W=23
// expect: transpose-tile
#include <cstddef>

#define KERNEL_LOOP_SZ(i, n) \
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
       i += (size_t)blockDim.x * gridDim.x)

__global__ void nhwc_to_nchw_kernel(const float* nhwc, float* nchw,
                                    int N, int C, int H, int W)
{
  const size_t total = (size_t)N * C * H * W;
  KERNEL_LOOP_SZ(index, total) {
    const size_t w = index % W;
    const size_t h = (index / W) % H;
    const size_t c = (index / ((size_t)W * H)) % C;
    const size_t n = index / ((size_t)W * H * C);
    nchw[index] = nhwc[((n * H + h) * W + w) * C + c];
  }
}
