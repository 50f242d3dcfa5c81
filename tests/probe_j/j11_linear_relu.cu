// style: tiny-NN-framework fully connected layer y = relu(x W^T + b), dot product through row pointers, 2D grid
// launch: grid cdiv(out_features, 32), cdiv(batch, 8) block 32, 8
// sizes: batch=187 in_features=223 out_features=141
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

// x: [batch, in_features], W: [out_features, in_features] (nn.Linear layout), b: [out_features]
__global__ void linear_relu_fwd(const float* __restrict__ x,
                                const float* __restrict__ W,
                                const float* __restrict__ bias,
                                float* __restrict__ y,
                                int batch, int in_features, int out_features)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= batch || col >= out_features) return;

    const float* xr = x + (size_t)row * in_features;
    const float* wr = W + (size_t)col * in_features;
    float s = 0.0f;
    for (int k = 0; k < in_features; ++k)
        s += xr[k] * wr[k];
    s += bias[col];
    y[(size_t)row * out_features + col] = s > 0.0f ? s : 0.0f;
}
