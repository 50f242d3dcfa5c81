// style: Caffe-layer style NCHW -> NHWC permute, CUDA_KERNEL_LOOP(index, nthreads) grid-stride macro and CAFFE_GET_BLOCKS launch, walks the INPUT linear index (w fastest) split with % W, / W % H, / W / H % C and scatters into NHWC, const int params, bottom/top naming
// launch: grid cdiv(nthreads, 512) block 512
// sizes: nthreads=33858 N=2 C=19 H=27 W=33
// expect: transpose-tile|gather
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_KERNEL_LOOP(i, n) \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

const int CAFFE_CUDA_NUM_THREADS = 512;
inline int CAFFE_GET_BLOCKS(const int N) { return (N + CAFFE_CUDA_NUM_THREADS - 1) / CAFFE_CUDA_NUM_THREADS; }

__global__ void NCHWToNHWCForward(const int nthreads, const float *bottom_data,
                                  const int N, const int C, const int H, const int W,
                                  float *top_data)
{
    CUDA_KERNEL_LOOP(index, nthreads) {
        const int w = index % W;
        const int h = (index / W) % H;
        const int c = (index / W / H) % C;
        const int n = index / W / H / C;
        top_data[((n * H + h) * W + w) * C + c] = bottom_data[index];
    }
}

int main()
{
    const int N = 2, C = 19, H = 27, W = 33;
    const int count = N * C * H * W;   // 33858
    std::vector<float> bottom(count), top(count);
    for (int i = 0; i < count; ++i) bottom[i] = (float)i;

    float *d_bottom, *d_top;
    cudaMalloc(&d_bottom, count * sizeof(float));
    cudaMalloc(&d_top, count * sizeof(float));
    cudaMemcpy(d_bottom, bottom.data(), count * sizeof(float), cudaMemcpyHostToDevice);

    NCHWToNHWCForward<<<CAFFE_GET_BLOCKS(count), CAFFE_CUDA_NUM_THREADS>>>(
        count, d_bottom, N, C, H, W, d_top);
    cudaMemcpy(top.data(), d_top, count * sizeof(float), cudaMemcpyDeviceToHost);

    // top[n][h][w][c] should equal bottom[n][c][h][w]
    int n = 1, c = 5, h = 20, w = 7;
    printf("top=%g bottom=%g\n", top[((n * H + h) * W + w) * C + c],
           bottom[((n * C + c) * H + h) * W + w]);

    cudaFree(d_bottom); cudaFree(d_top);
    return 0;
}
