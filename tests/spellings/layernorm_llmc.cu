// launch: grid cdiv(N, 64) block 64
// expect: inline the helpers that loop; add __restrict__ to out, mean, rstd, inp, weight, bias; spread the loop(s) on line 16, 18, 25 over a warp per row
#define LN_EPS 1e-5f
__device__ float row_mean(const float* x, int C) {
    float sum = 0.0f;
    for (int i = 0; i < C; i++) {
        sum += x[i];
    }
    return sum / C;
}
__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N) { return; }
    const float* x = inp + idx * C;
    float m = row_mean(x, C);
    float v = 0.0f;
    for (int i = 0; i < C; i++) {
        float xshift = x[i] - m;
        v += xshift * xshift;
    }
    v = v / C;
    float s = 1.0f / sqrtf(v + LN_EPS);
    float* out_idx = out + idx * C;
    for (int i = 0; i < C; i++) {
        float n = (s * (x[i] - m));
        float o = n * weight[i] + bias[i];
        out_idx[i] = o;
    }
    mean[idx] = m;
    rstd[idx] = s;
}
