// launch: grid cdiv(N, 32) block 32
// expect: over a warp per row
#define EPS 1e-5f
__device__ inline float square(float v) { return v * v; }
__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C) {
    unsigned int r = threadIdx.x + blockIdx.x * blockDim.x;
    if (r < N) {
        const float* __restrict__ xr = &inp[r * C];
        float acc = 0.f;
        int k = 0;
        while (k < C) { acc += xr[k]; k++; }
        const float mu = acc / (float)C;
        float var = 0.f;
        for (int k2 = 0; k2 < C; k2 += 1) var += square(xr[k2] - mu);
        const float inv = rsqrtf(var / (float)C + EPS);
        for (int k3 = 0; k3 < C; ++k3) {
            out[r * C + k3] = weight[k3] * ((xr[k3] - mu) * inv) + bias[k3];
        }
        mean[r] = mu;
        rstd[r] = inv;
    }
}
