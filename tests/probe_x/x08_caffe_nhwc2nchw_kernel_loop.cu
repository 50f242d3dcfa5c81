// style: Caffe/Caffe2 layout-kernel spelling - CUDA_KERNEL_LOOP grid-stride macro, CAFFE_GET_BLOCKS launch helper with CAFFE_CUDA_NUM_THREADS 512, `const int nthreads` as the first parameter, template <typename Dtype> with explicit instantiations, output (NCHW) loop index peeled into w, h, c, n by repeated / and %, then a gather from the NHWC input
// launch: grid cdiv(nthreads, 512) block 512
// sizes: nthreads=3465 channels=7 height=9 width=11
// template: float
// expect: transpose-tile
#include <cuda_runtime.h>

// CUDA: grid stride looping
#define CUDA_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; \
       i < (n); \
       i += blockDim.x * gridDim.x)

// CUDA: use 512 threads per block
const int CAFFE_CUDA_NUM_THREADS = 512;

// CUDA: number of blocks for threads.
inline int CAFFE_GET_BLOCKS(const int N) {
  return (N + CAFFE_CUDA_NUM_THREADS - 1) / CAFFE_CUDA_NUM_THREADS;
}

template <typename Dtype>
__global__ void NHWCToNCHWKernel(const int nthreads, const Dtype* bottom_data,
    const int channels, const int height, const int width, Dtype* top_data) {
  CUDA_KERNEL_LOOP(index, nthreads) {
    // index runs over the NCHW output
    const int w = index % width;
    const int h = (index / width) % height;
    const int c = (index / width / height) % channels;
    const int n = index / width / height / channels;
    top_data[index] = bottom_data[((n * height + h) * width + w) * channels + c];
  }
}

template <typename Dtype>
void NHWCToNCHW_gpu(const int num, const int channels, const int height, const int width,
    const Dtype* bottom_data, Dtype* top_data) {
  const int count = num * channels * height * width;
  // NOLINT_NEXT_LINE(whitespace/operators)
  NHWCToNCHWKernel<Dtype><<<CAFFE_GET_BLOCKS(count), CAFFE_CUDA_NUM_THREADS>>>(
      count, bottom_data, channels, height, width, top_data);
}

template void NHWCToNCHW_gpu<float>(const int, const int, const int, const int,
    const float*, float*);
template void NHWCToNCHW_gpu<double>(const int, const int, const int, const int,
    const double*, double*);
