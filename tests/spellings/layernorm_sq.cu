// launch: grid cdiv(N, 128) block 128
// expect: over a block per row
__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    const float* x = inp + row * C;
    float sum = 0.0f, sumsq = 0.0f;
    for (int i = 0; i < C; i++) {
        float v = x[i];
        sum += v;
        sumsq += v * v;
    }
    float mu = sum / C;
    float var = sumsq / C - mu * mu;
    float rs = rsqrtf(var + 1e-5f);
    for (int i = 0; i < C; i++) {
        out[row * C + i] = (x[i] - mu) * rs * weight[i] + bias[i];
    }
    mean[row] = mu;
    rstd[row] = rs;
}
