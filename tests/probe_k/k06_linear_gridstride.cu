// style: PyTorch nn.Linear re-implemented as a custom-op kernel: grid-stride loop over batch*out_features, / and % to split, row pointers x_row / w_row, optional bias checked against nullptr
// launch: grid cdiv(batch * out_features, 128) block 128
// sizes: batch=37 in_features=129 out_features=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

// out[b][o] = bias[o] + sum_i inp[b][i] * weight[o][i]
// inp: (batch, in_features), weight: (out_features, in_features) as stored by torch
__global__ void linear_forward_kernel(const float *__restrict__ inp,
                                      const float *__restrict__ weight,
                                      const float *__restrict__ bias,
                                      float *__restrict__ out,
                                      int batch, int in_features, int out_features)
{
    const int total = batch * out_features;
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += gridDim.x * blockDim.x) {
        const int b = idx / out_features;
        const int o = idx % out_features;
        const float *x_row = inp + (size_t)b * in_features;
        const float *w_row = weight + (size_t)o * in_features;
        float val = (bias != nullptr) ? bias[o] : 0.0f;
        for (int i = 0; i < in_features; i++) {
            val += x_row[i] * w_row[i];
        }
        out[idx] = val;
    }
}
