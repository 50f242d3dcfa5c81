// corpus: layer norm step 1: one thread per row, two passes for mean and variance
// absent: fp64-in-float-kernel, sync-in-divergent-branch, register-spill, shared-bank-conflict
__global__ void layernorm_thread_row(const float* __restrict__ x, const float* __restrict__ gamma,
                                     const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                                     float eps) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float mean = 0.0f;
    for (int c = 0; c < cols; ++c) mean += x[r * cols + c];  // expect: uncoalesced-access
    mean /= cols;
    float var = 0.0f;
    for (int c = 0; c < cols; ++c) {
        float d = x[r * cols + c] - mean;  // expect: uncoalesced-access
        var += d * d;
    }
    float inv = rsqrtf(var / cols + eps);
    for (int c = 0; c < cols; ++c) y[r * cols + c] = (x[r * cols + c] - mean) * inv * gamma[c] + beta[c];  // expect: uncoalesced-access
}

void launch_layernorm(const float* x, const float* g, const float* b, float* y, int rows, int cols) {
    layernorm_thread_row<<<(rows + 127) / 128, 128>>>(x, g, b, y, rows, cols, 1e-5f);
}
