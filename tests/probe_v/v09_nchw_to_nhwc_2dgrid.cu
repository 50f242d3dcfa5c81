// style: Caffe/ONNX-runtime style layout conversion NCHW -> NHWC; 2-D grid where blockIdx.y enumerates the N*C planes (split into n and c with / and %) and x runs over the flattened H*W plane, so the read is contiguous and the write strides by C
// launch: grid cdiv(H*W, 128), N*C block 128
// sizes: N=2 C=3 H=19 W=23
// expect: transpose-tile
#include <cuda_runtime.h>

__global__ void nchw_to_nhwc(const float *src, float *dst, int N, int C, int H, int W)
{
    int hw = blockIdx.x * blockDim.x + threadIdx.x;
    int nc = blockIdx.y;
    int HW = H * W;
    if (hw >= HW || nc >= N * C) return;

    int n = nc / C;
    int c = nc % C;
    dst[((size_t)n * HW + hw) * C + c] = src[(size_t)nc * HW + hw];
}
