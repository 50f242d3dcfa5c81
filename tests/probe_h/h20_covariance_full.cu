// style: PolyBench-like covariance step done as a full (not triangular) product: cov[i][j] = sum_k (X[k][i]-mean[i]) * (X[k][j]-mean[j]) / (n-1)
// launch: grid cdiv(m, 16), cdiv(m, 16) block 16, 16
// sizes: n=223 m=187
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library

// data : n observations x m variables, row-major
// mean : m column means (computed by an earlier kernel)
// cov  : m x m
__global__ void covariance_full_kernel(const float *data, const float *mean,
                                       float *cov, int n, int m)
{
    int j2 = blockIdx.x * blockDim.x + threadIdx.x;
    int j1 = blockIdx.y * blockDim.y + threadIdx.y;
    if (j1 >= m || j2 >= m)
        return;

    const float mu1 = mean[j1];
    const float mu2 = mean[j2];
    float s = 0.0f;
    for (int k = 0; k < n; k++)
        s += (data[k * m + j1] - mu1) * (data[k * m + j2] - mu2);

    cov[j1 * m + j2] = s / (float)(n - 1);
}
