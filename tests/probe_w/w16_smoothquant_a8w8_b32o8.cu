// style: SmoothQuant / torch-int W8A8B32O8 linear as a plain kernel: int8 activations [M,K] times int8 weight [N,K] (nn.Linear layout, so A @ W^T) accumulated in int32, epilogue alpha*acc + beta*bias_int32 requantized with __float2int_rn and clamped to int8
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=75 N=93 K=67 alpha=0.125 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cstdint>

__global__ void linear_a8_w8_b32_o8_kernel(const int8_t* __restrict__ input,   // [M, K]
                                           const int8_t* __restrict__ weight,  // [N, K]
                                           const int32_t* __restrict__ bias,   // [N]
                                           int8_t* __restrict__ output,        // [M, N]
                                           int M, int N, int K,
                                           float alpha, float beta) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;

  int32_t acc = 0;
  for (int k = 0; k < K; ++k) {
    acc += static_cast<int32_t>(input[m * K + k]) * static_cast<int32_t>(weight[n * K + k]);
  }

  const float y = alpha * static_cast<float>(acc) + beta * static_cast<float>(bias[n]);
  int q = __float2int_rn(y);
  q = q > 127 ? 127 : (q < -128 ? -128 : q);
  output[m * N + n] = static_cast<int8_t>(q);
}

void linear_a8_w8_b32_o8(const int8_t* input, const int8_t* weight, const int32_t* bias, int8_t* output,
                         int M, int N, int K, float alpha, float beta, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  linear_a8_w8_b32_o8_kernel<<<grid, block, 0, stream>>>(input, weight, bias, output, M, N, K, alpha, beta);
}
