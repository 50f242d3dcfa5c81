// squared Euclidean distances between the rows of x (n x d) and of y (m x d): the column on threadIdx.x
__global__ void sq_dist(const float* x, const float* y, float* out, int n, int m, int d) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < m) {
        float s = 0.0f;
        for (int k = 0; k < d; k++) {
            float diff = x[i * d + k] - y[j * d + k];
            s += diff * diff;
        }
        out[i * m + j] = s;
    }
}
