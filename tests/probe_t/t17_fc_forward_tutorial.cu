// style: "CUDA for deep learning" tutorial linear/fully-connected layer forward; out[n][o] = b[o] + sum_i in[n][i] * W[o][i] (PyTorch nn.Linear weight layout out_features x in_features), 1-D blocks of 128 over output features, sample n on blockIdx.y, snake_case names, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(out_features, 128), batch block 128
// sizes: batch=5 in_features=75 out_features=139
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void linear_forward(const float *input, const float *weight,
                               const float *bias, float *output,
                               int batch, int in_features, int out_features)
{
    int n = blockIdx.y;                                  // sample in the batch
    int o = blockIdx.x * blockDim.x + threadIdx.x;       // output neuron
    if (n < batch && o < out_features) {
        float val = bias[o];
        for (int i = 0; i < in_features; i++) {
            val += input[n * in_features + i] * weight[o * in_features + i];
        }
        output[n * out_features + o] = val;
    }
}

int main()
{
    const int batch = 5, in_features = 75, out_features = 139;
    std::vector<float> h_in(batch * in_features), h_w(out_features * in_features),
        h_b(out_features), h_out(batch * out_features);
    for (size_t i = 0; i < h_in.size(); i++) h_in[i] = 0.01f * (float)(i % 29);
    for (size_t i = 0; i < h_w.size(); i++) h_w[i] = 0.02f * (float)((int)(i % 11) - 5);
    for (size_t i = 0; i < h_b.size(); i++) h_b[i] = 0.1f;

    float *d_in, *d_w, *d_b, *d_out;
    cudaMalloc(&d_in, h_in.size() * sizeof(float));
    cudaMalloc(&d_w, h_w.size() * sizeof(float));
    cudaMalloc(&d_b, h_b.size() * sizeof(float));
    cudaMalloc(&d_out, h_out.size() * sizeof(float));
    cudaMemcpy(d_in, h_in.data(), h_in.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, h_w.data(), h_w.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b.data(), h_b.size() * sizeof(float), cudaMemcpyHostToDevice);

    const int threads = 128;
    dim3 blocks((out_features + threads - 1) / threads, batch);
    linear_forward<<<blocks, threads>>>(d_in, d_w, d_b, d_out, batch, in_features, out_features);
    cudaDeviceSynchronize();
    cudaMemcpy(h_out.data(), d_out, h_out.size() * sizeof(float), cudaMemcpyDeviceToHost);

    printf("out[0][0] = %f\n", h_out[0]);
    cudaFree(d_in); cudaFree(d_w); cudaFree(d_b); cudaFree(d_out);
    return 0;
}
