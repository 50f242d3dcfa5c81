// launch: grid cdiv(N, 128) block 128
// expect: the running mean and variance as two passes; spread the loop(s) on line 9, 15 over a warp per row
__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < N && C > 0) {
        const float* x = inp + row * C;
        float mu = 0.0f, m2 = 0.0f;
        for (int i = 0; i < C; i++) {
            float d = x[i] - mu;
            mu += d / (i + 1);
            m2 += d * (x[i] - mu);
        }
        float r = rsqrtf(m2 / C + 1e-5f);
        for (int i = 0; i < C; i++) out[row * C + i] = (x[i] - mu) * r * weight[i] + bias[i];
        mean[row] = mu;
        rstd[row] = r;
    }
}
