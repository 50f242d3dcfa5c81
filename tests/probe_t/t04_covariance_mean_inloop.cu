// style: PolyBench-like covariance / data-mining code; cov = Xbar^T Xbar / (n-1) with the column mean (passed as an array) subtracted inside the k loop, data stored samples x features row-major, j1/j2 feature indices, float scale parameter inv_nm1, separate column_mean kernel after it, no host code
// launch: grid cdiv(nfeat, 16), cdiv(nfeat, 16) block 16, 16
// sizes: nsamp=75 nfeat=67 inv_nm1=0.0135
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void covariance_kernel(const float *data, const float *mean,
                                  float *cov, int nsamp, int nfeat,
                                  float inv_nm1)
{
    int j2 = blockIdx.x * blockDim.x + threadIdx.x;
    int j1 = blockIdx.y * blockDim.y + threadIdx.y;

    if ((j1 < nfeat) && (j2 < nfeat)) {
        float s = 0.0f;
        for (int i = 0; i < nsamp; i++) {
            s += (data[i * nfeat + j1] - mean[j1]) *
                 (data[i * nfeat + j2] - mean[j2]);
        }
        cov[j1 * nfeat + j2] = s * inv_nm1;
    }
}

__global__ void column_mean_kernel(const float *data, float *mean,
                                   int nsamp, int nfeat)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < nfeat) {
        float s = 0.0f;
        for (int i = 0; i < nsamp; i++)
            s += data[i * nfeat + j];
        mean[j] = s / (float)nsamp;
    }
}
