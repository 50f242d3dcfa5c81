// per-column variance around a given mean: the column's own mean read in the loop
__global__ void colvar(const float* d, const float* mean, float* var, int N, int M) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < M) {
        float s = 0.0f;
        for (int i = 0; i < N; i++) {
            float t = d[i * M + j] - mean[j];
            s += t * t;
        }
        var[j] = s / N;
    }
}
