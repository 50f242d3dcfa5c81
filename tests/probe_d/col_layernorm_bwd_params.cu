// launch: grid cdiv(C, 128) block 128
// sizes: N=640 C=384
// expect: column
// LayerNorm backward parameter gradients (dgamma, dbeta) as per-column sums over rows, using saved mean/rstd (llm.c / Apex style, naive)
#include <cuda_runtime.h>

__global__ void layernorm_backward_params(float* __restrict__ dweight, float* __restrict__ dbias,
                                          const float* __restrict__ dout, const float* __restrict__ inp,
                                          const float* __restrict__ mean, const float* __restrict__ rstd,
                                          int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;

    float dw = 0.0f, db = 0.0f;
    for (int n = 0; n < N; ++n) {
        float norm = (inp[n * C + c] - mean[n]) * rstd[n];
        float g = dout[n * C + c];
        db += g;
        dw += norm * g;
    }
    dweight[c] += dw;
    dbias[c] += db;
}
