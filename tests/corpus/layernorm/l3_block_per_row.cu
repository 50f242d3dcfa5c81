// corpus: layer norm step 3: one block per row, float4 loads, Welford-free sums through shared memory, multiply by 1/sd
// fixes: slow-math-in-loop
// absent: fp64-in-float-kernel, sync-in-divergent-branch, register-spill, shared-bank-conflict, uncoalesced-access, slow-math-in-loop, block-reduction-barriers
#define THREADS 256

__global__ void layernorm_block_row(const float4* __restrict__ x, const float4* __restrict__ gamma,
                                    const float4* __restrict__ beta, float4* __restrict__ y, int cols4, float eps) {
    __shared__ float red_s[THREADS / 32];
    __shared__ float red_ss[THREADS / 32];
    const float4* in = x + (size_t)blockIdx.x * cols4;
    float s = 0.0f, ss = 0.0f;
    for (int c = threadIdx.x; c < cols4; c += THREADS) {
        float4 v = in[c];
        s += v.x + v.y + v.z + v.w;
        ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
        ss += __shfl_xor_sync(0xffffffffu, ss, o);
    }
    if ((threadIdx.x & 31) == 0) {
        red_s[threadIdx.x / 32] = s;
        red_ss[threadIdx.x / 32] = ss;
    }
    __syncthreads();
    s = 0.0f;
    ss = 0.0f;
#pragma unroll
    for (int w = 0; w < THREADS / 32; ++w) {
        s += red_s[w];
        ss += red_ss[w];
    }
    const float n = 4.0f * cols4;
    const float mean = s / n;
    const float inv = rsqrtf(ss / n - mean * mean + eps);
    float4* out = y + (size_t)blockIdx.x * cols4;
    for (int c = threadIdx.x; c < cols4; c += THREADS) {
        float4 v = in[c], g = gamma[c], b = beta[c];
        out[c] = make_float4((v.x - mean) * inv * g.x + b.x, (v.y - mean) * inv * g.y + b.y,
                             (v.z - mean) * inv * g.z + b.z, (v.w - mean) * inv * g.w + b.w);
    }
}

void launch_layernorm(const float4* x, const float4* g, const float4* b, float4* y, int rows, int cols) {
    layernorm_block_row<<<rows, THREADS>>>(x, g, b, y, cols / 4, 1e-5f);
}
