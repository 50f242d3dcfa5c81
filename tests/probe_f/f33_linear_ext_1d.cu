// style: PyTorch C++/CUDA extension tutorial linear layer (raw data_ptr pointers), 1-D index split into row/col with / and %
// launch: grid cdiv(batch_size * out_features, 256) block 256
// sizes: batch_size=123 in_features=171 out_features=213
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void linear_forward_kernel(const float* __restrict__ input,
                                      const float* __restrict__ weight,
                                      const float* __restrict__ bias,
                                      float* __restrict__ output,
                                      int batch_size, int in_features, int out_features) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < batch_size * out_features) {
    const int row = idx / out_features;
    const int col = idx % out_features;
    float sum = bias[col];
    for (int k = 0; k < in_features; ++k) {
      sum += input[row * in_features + k] * weight[col * in_features + k];
    }
    output[idx] = sum;
  }
}

// called from the binding with input.data_ptr<float>() etc.
void linear_forward_cuda(const float* input, const float* weight, const float* bias, float* output,
                         int batch_size, int in_features, int out_features) {
  const int threads = 256;
  const int blocks = (batch_size * out_features + threads - 1) / threads;
  linear_forward_kernel<<<blocks, threads>>>(input, weight, bias, output,
                                             batch_size, in_features, out_features);
}
