// style: PyTorch-like nn.Linear forward y = x.W^T + b (W stored (out_features, in_features)), #pragma unroll 8 dot product, tanh-approx GELU epilogue
// launch: grid cdiv(out_features, 32), cdiv(batch, 8) block 32, 8
// sizes: batch=187 in_features=223 out_features=141
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

#define GELU_SCALING_FACTOR 0.7978845608028654f   // sqrt(2 / pi)

__device__ __forceinline__ float gelu_tanh(float v)
{
    float cube = 0.044715f * v * v * v;
    return 0.5f * v * (1.0f + tanhf(GELU_SCALING_FACTOR * (v + cube)));
}

// x: (batch, in_features), W: (out_features, in_features), bias: (out_features) or NULL
// y: (batch, out_features)
__global__ void linear_gelu_fwd(const float *__restrict__ x,
                                const float *__restrict__ W,
                                const float *__restrict__ bias,
                                float *__restrict__ y,
                                int batch, int in_features, int out_features)
{
    const int o = blockIdx.x * blockDim.x + threadIdx.x;   // output feature
    const int n = blockIdx.y * blockDim.y + threadIdx.y;   // sample
    if (n >= batch || o >= out_features)
        return;

    const float *xr = x + (size_t)n * in_features;
    const float *wr = W + (size_t)o * in_features;

    float acc = (bias != NULL) ? bias[o] : 0.0f;
#pragma unroll 8
    for (int i = 0; i < in_features; ++i)
        acc += xr[i] * wr[i];

    y[(size_t)n * out_features + o] = gelu_tanh(acc);
}
