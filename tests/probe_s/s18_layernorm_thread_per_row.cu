// style: transformer-from-scratch repo "layernorm forward" (llm.c-like CPU loop ported one thread per row); row pointer xr = x + (size_t)r * cols, mean in a first loop, variance in a second loop over (xr[c] - mean), rsqrtf(var + eps), third loop writes (xr[c] - mean) * rstd * gamma[c] + beta[c], no host code
// launch: grid cdiv(rows, 64) block 64
// sizes: rows=77 cols=129 eps=0.00001
// expect: row-warp|row-block
#include <cuda_runtime.h>

__global__ void layernorm_rows(const float *x, const float *gamma, const float *beta,
                               float *y, int rows, int cols, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;

    const float *xr = x + (size_t)r * cols;
    float *yr = y + (size_t)r * cols;

    float mean = 0.0f;
    for (int c = 0; c < cols; c++)
        mean += xr[c];
    mean /= cols;

    float var = 0.0f;
    for (int c = 0; c < cols; c++) {
        float d = xr[c] - mean;
        var += d * d;
    }
    var /= cols;

    float rstd = rsqrtf(var + eps);
    for (int c = 0; c < cols; c++)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
