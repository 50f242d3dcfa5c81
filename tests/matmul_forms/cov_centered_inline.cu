// covariance with the means subtracted inside the sum, read where they are used (no locals), the sample
// count's correction in the store: cov[i][j] = sum_k (x[k][i] - mean[i]) (x[k][j] - mean[j]) / (n - 1)
__global__ void cov_inline(const float* x, const float* mean, float* cov, int n, int m) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m && j < m) {
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
      s += (x[k * m + j] - mean[j]) * (x[k * m + i] - mean[i]);
    cov[i * m + j] = s / (n - 1);
  }
}
