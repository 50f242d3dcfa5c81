// style: PyTorch C++/CUDA extension tutorial, fused linear + bias + ReLU (weight is [out_features, in_features])
// launch: grid cdiv(out_features, 16), cdiv(batch_size, 16) block 16, 16
// sizes: batch_size=173 in_features=217 out_features=139
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void linear_relu_forward_kernel(
    const float* __restrict__ input,
    const float* __restrict__ weight,
    const float* __restrict__ bias,
    float* __restrict__ output,
    const int batch_size,
    const int in_features,
    const int out_features) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;  // sample
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // output feature
  if (row < batch_size && col < out_features) {
    float sum = 0.0f;
    for (int k = 0; k < in_features; ++k) {
      sum += input[row * in_features + k] * weight[col * in_features + k];
    }
    sum += bias[col];
    output[row * out_features + col] = sum > 0.0f ? sum : 0.0f;
  }
}
