// style: early PyTorch-extension nn.Linear forward (y = x W^T + b) with int64_t indices and bias added after the dot loop
// launch: grid cdiv(out_features, 32), cdiv(batch, 8) block 32, 8
// sizes: batch=33 in_features=75 out_features=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdint>
#include <cuda_runtime.h>

__global__ void linear_forward_kernel(const float* __restrict__ input,
                                      const float* __restrict__ weight,
                                      const float* __restrict__ bias,
                                      float* __restrict__ output,
                                      int64_t batch, int64_t in_features, int64_t out_features)
{
    const int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t n = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (n < batch && o < out_features) {
        float acc = 0.f;
        for (int64_t i = 0; i < in_features; ++i) {
            acc += input[n * in_features + i] * weight[o * in_features + i];
        }
        acc += bias[o];
        output[n * out_features + o] = acc;
    }
}

void linear_forward_cuda(const float* x, const float* w, const float* b, float* y,
                         int64_t batch, int64_t in_features, int64_t out_features)
{
    float *d_x, *d_w, *d_b, *d_y;
    size_t xs = batch * in_features * sizeof(float);
    size_t ws = out_features * in_features * sizeof(float);
    size_t ys = batch * out_features * sizeof(float);
    cudaMalloc(&d_x, xs);
    cudaMalloc(&d_w, ws);
    cudaMalloc(&d_b, out_features * sizeof(float));
    cudaMalloc(&d_y, ys);
    cudaMemcpy(d_x, x, xs, cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, w, ws, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, out_features * sizeof(float), cudaMemcpyHostToDevice);

    const dim3 block(32, 8);
    const dim3 grid((unsigned)((out_features + 31) / 32), (unsigned)((batch + 7) / 8));
    linear_forward_kernel<<<grid, block>>>(d_x, d_w, d_b, d_y, batch, in_features, out_features);

    cudaMemcpy(y, d_y, ys, cudaMemcpyDeviceToHost);
    cudaFree(d_x); cudaFree(d_w); cudaFree(d_b); cudaFree(d_y);
}
