// style: statistics/feature-scaling code; two kernels (column mean, then column variance that reads the per-column mean array), all indices `unsigned int`, float data with a double accumulator, unbiased divisor (m - 1), one thread per column of a row-major m x n matrix
// kernel: col_variance
// launch: grid cdiv(n, 256) block 256
// sizes: m=77 n=91
// expect: column
#include <cuda_runtime.h>

__global__ void col_mean(const float *data, float *mean, unsigned int m, unsigned int n)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    double s = 0.0;
    for (unsigned int i = 0; i < m; ++i)
        s += data[i * n + j];
    mean[j] = (float)(s / m);
}

__global__ void col_variance(const float *data, const float *mean, float *var, unsigned int m, unsigned int n)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    float mu = mean[j];
    double s = 0.0;
    for (unsigned int i = 0; i < m; ++i) {
        double d = data[i * n + j] - mu;
        s += d * d;
    }
    var[j] = (float)(s / (m - 1));
}
