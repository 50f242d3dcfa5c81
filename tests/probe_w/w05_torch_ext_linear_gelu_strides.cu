// style: PyTorch C++/CUDA extension without AT_DISPATCH: plain float kernel with torch naming (input/weight/bias/output, batch_size, in_features, out_features), int64_t sizes and every tensor stride passed explicitly in place of packed accessors, exact erf GELU applied after the bias in the epilogue
// launch: grid cdiv(out_features, 16), cdiv(batch_size, 16) block 16, 16
// sizes: batch_size=67 in_features=77 out_features=93 input_stride0=77 input_stride1=1 weight_stride0=77 weight_stride1=1 output_stride0=93
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cstdint>
#include <cmath>

namespace {

__device__ __forceinline__ float gelu_erf(float x) {
  // torch.nn.functional.gelu(approximate='none')
  return 0.5f * x * (1.0f + erff(x * 0.70710678118654752440f));
}

__global__ void linear_gelu_cuda_forward_kernel(
    const float* __restrict__ input,    // [batch_size, in_features]
    const float* __restrict__ weight,   // [out_features, in_features]
    const float* __restrict__ bias,     // [out_features]
    float* __restrict__ output,         // [batch_size, out_features]
    const int64_t batch_size,
    const int64_t in_features,
    const int64_t out_features,
    const int64_t input_stride0,
    const int64_t input_stride1,
    const int64_t weight_stride0,
    const int64_t weight_stride1,
    const int64_t output_stride0) {
  // column index
  const int64_t c = blockIdx.x * blockDim.x + threadIdx.x;
  // batch index
  const int64_t n = blockIdx.y * blockDim.y + threadIdx.y;
  if (n < batch_size && c < out_features) {
    float acc = bias[c];
    for (int64_t k = 0; k < in_features; ++k) {
      acc += input[n * input_stride0 + k * input_stride1] *
             weight[c * weight_stride0 + k * weight_stride1];
    }
    output[n * output_stride0 + c] = gelu_erf(acc);
  }
}

} // namespace

// called from the pybind11 binding with tensor.data_ptr<float>() and tensor.stride(i)
void linear_gelu_cuda_forward(const float* input, const float* weight, const float* bias, float* output,
                              int64_t batch_size, int64_t in_features, int64_t out_features,
                              int64_t input_stride0, int64_t input_stride1,
                              int64_t weight_stride0, int64_t weight_stride1,
                              int64_t output_stride0) {
  const dim3 threads(16, 16);
  const dim3 blocks((out_features + threads.x - 1) / threads.x,
                    (batch_size + threads.y - 1) / threads.y);
  linear_gelu_cuda_forward_kernel<<<blocks, threads>>>(
      input, weight, bias, output, batch_size, in_features, out_features,
      input_stride0, input_stride1, weight_stride0, weight_stride1, output_stride0);
}
