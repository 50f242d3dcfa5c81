// launch: grid cdiv(out_features, 16), cdiv(batch, 16) block 16, 16
// sizes: batch=256 in_features=300 out_features=200
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// a linear layer y = x W^T + b, W as [out, in] like PyTorch's
__global__ void linear_forward(const float* x, const float* W, const float* b, float* y,
                               int batch, int in_features, int out_features) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y * blockDim.y + threadIdx.y;
    if (n < batch && o < out_features) {
        float acc = b[o];
        for (int i = 0; i < in_features; ++i) acc += x[n * in_features + i] * W[o * in_features + i];
        y[n * out_features + o] = acc;
    }
}
