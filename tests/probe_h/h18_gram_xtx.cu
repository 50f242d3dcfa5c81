// style: ML-course Gram / normal-equations kernel G = X^T X with X stored (n_samples, n_features) row-major, rows are samples
// launch: grid cdiv(n_features, 32), cdiv(n_features, 8) block 32, 8
// sizes: n_samples=223 n_features=187
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library

// G[i][j] = sum_s X[s][i] * X[s][j],  G is n_features x n_features (full, symmetric)
__global__ void gram_xtx_kernel(const float *X, float *G, int n_samples, int n_features)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < n_features && j < n_features) {
        float s = 0.0f;
        const float *xi = X + i;
        const float *xj = X + j;
        for (int r = 0; r < n_samples; ++r) {
            s += xi[0] * xj[0];
            xi += n_features;
            xj += n_features;
        }
        G[i * n_features + j] = s;
    }
}
