// launch: grid cdiv(out_features, 128), batch block 128
// sizes: batch=200 in_features=384 out_features=500
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// fully-connected layer y = relu(x W^T + b) through row pointers, one block row per sample (PyTorch-extension tutorial style linear forward)
__global__ void linear_relu_forward(const float* __restrict__ x,
                                    const float* __restrict__ W,
                                    const float* __restrict__ bias,
                                    float* __restrict__ y,
                                    int batch, int in_features, int out_features)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;  // output feature
    int n = blockIdx.y;                             // sample
    if (o >= out_features || n >= batch) return;

    const float* xrow = x + (size_t)n * in_features;
    const float* wrow = W + (size_t)o * in_features;

    float acc = bias[o];
    for (int k = 0; k < in_features; ++k)
        acc += xrow[k] * wrow[k];

    y[(size_t)n * out_features + o] = acc > 0.0f ? acc : 0.0f;
}
