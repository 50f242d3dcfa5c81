// style: BLOOM / MPT-style attention scores with ALiBi position bias: fp16 Q and K in (B, NH, T, HS), fp32 scores (B, NH, T, T) = scale * Q K^T + slope_h * (j - i) with slope_h = 2^(-8(h+1)/NH), causal positions j > i set to -INFINITY, key index j on threadIdx.x, query i on y, b*NH + h on blockIdx.z, size_t head offsets, __half2float conversion inside the head-dim loop
// launch: grid cdiv(T, 32), cdiv(T, 8), B*NH block 32, 8
// sizes: B=2 NH=4 T=45 HS=37 scale=0.125
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_fp16.h>
#include <math.h>

__device__ __forceinline__ float alibi_slope(int h, int n_heads) {
    // n_heads assumed a power of two here (as in the original ALiBi paper's closed form)
    return exp2f(-8.0f * (float)(h + 1) / (float)n_heads);
}

__global__ void alibi_attn_scores_kernel(const __half* __restrict__ q,
                                         const __half* __restrict__ k,
                                         float* __restrict__ scores,
                                         int B, int NH, int T, int HS, float scale)
{
    const int j  = blockIdx.x * blockDim.x + threadIdx.x;   // key position
    const int i  = blockIdx.y * blockDim.y + threadIdx.y;   // query position
    const int bh = blockIdx.z;                              // b * NH + h
    if (bh >= B * NH || i >= T || j >= T) return;

    const int h = bh % NH;
    const size_t head_off = (size_t)bh * T * HS;
    const __half* qi = q + head_off + (size_t)i * HS;
    const __half* kj = k + head_off + (size_t)j * HS;
    float* out = scores + (size_t)bh * T * T + (size_t)i * T;

    if (j > i) {
        out[j] = -INFINITY;
        return;
    }

    float acc = 0.0f;
    for (int d = 0; d < HS; ++d) {
        acc += __half2float(qi[d]) * __half2float(kj[d]);
    }
    out[j] = acc * scale + alibi_slope(h, NH) * (float)(j - i);
}
