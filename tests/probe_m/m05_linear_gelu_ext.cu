// style: PyTorch C++/CUDA extension: scalar_t template, __restrict__, const int args, blockIdx.y is the batch row; fused y = x W^T + b followed by a tanh-GELU __device__ helper
// launch: grid cdiv(out_features, 128), batch_size block 128
// sizes: batch_size=37 in_features=77 out_features=130
// template: float
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
template <typename scalar_t>
__device__ __forceinline__ scalar_t gelu_tanh(scalar_t x) {
  const scalar_t kAlpha = scalar_t(0.7978845608028654);  // sqrt(2 / pi)
  const scalar_t inner = kAlpha * (x + scalar_t(0.044715) * x * x * x);
  return scalar_t(0.5) * x * (scalar_t(1) + tanh(inner));
}

template <typename scalar_t>
__global__ void linear_gelu_forward_kernel(
    const scalar_t* __restrict__ input,    // [batch_size, in_features]
    const scalar_t* __restrict__ weight,   // [out_features, in_features]
    const scalar_t* __restrict__ bias,     // [out_features]
    scalar_t* __restrict__ output,         // [batch_size, out_features]
    const int batch_size,
    const int in_features,
    const int out_features) {
  const int n = blockIdx.y;
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (n < batch_size && o < out_features) {
    scalar_t acc = bias[o];
    for (int i = 0; i < in_features; ++i) {
      acc += input[n * in_features + i] * weight[o * in_features + i];
    }
    output[n * out_features + o] = gelu_tanh<scalar_t>(acc);
  }
}

template __global__ void linear_gelu_forward_kernel<float>(
    const float* __restrict__, const float* __restrict__, const float* __restrict__,
    float* __restrict__, const int, const int, const int);
