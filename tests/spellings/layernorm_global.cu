// launch: grid cdiv(N, 256) block 256
// expect: hold an element in a register; spread the loop(s) on line 9, 12, 14 over a block per row
__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C) {
    int tid = threadIdx.x;
    int row = blockIdx.x * blockDim.x + tid;
    if (row < N) {
        mean[row] = 0.0f;
        for (int i = 0; i < C; i++) mean[row] += inp[row * C + i];
        mean[row] /= C;
        float var = 0.0f;
        for (int i = 0; i < C; i++) var += (inp[row * C + i] - mean[row]) * (inp[row * C + i] - mean[row]);
        rstd[row] = rsqrtf(var / C + 1e-5f);
        for (int i = 0; i < C; i++)
            out[row * C + i] = (inp[row * C + i] - mean[row]) * rstd[row] * weight[i] + bias[i];
    }
}
