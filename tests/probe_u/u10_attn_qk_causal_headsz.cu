// style: educational "attention from scratch" kernel computing att = Q K^T / sqrt(HS) with Q,K laid out (B, NH, T, HS); (batch*head) comes from blockIdx.z, the causal upper triangle (j > i) is stored as -INFINITY with an early return, scale computed in-kernel as 1.0f / sqrtf((float)HS)
// launch: grid cdiv(T, 16), cdiv(T, 16), B * NH block 16, 16
// sizes: B=2 NH=3 T=71 HS=37
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <math.h>

// q, k : (B, NH, T, HS)     att : (B, NH, T, T)
__global__ void attn_scores_causal(const float *q, const float *k, float *att,
                                   int B, int NH, int T, int HS)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // key position
    int i = blockIdx.y * blockDim.y + threadIdx.y;   // query position
    int bh = blockIdx.z;                             // b * NH + h

    if (i >= T || j >= T || bh >= B * NH)
        return;

    float *att_bh = att + (size_t)bh * T * T;
    if (j > i) {
        att_bh[i * T + j] = -INFINITY;
        return;
    }

    const float *qi = q + ((size_t)bh * T + i) * HS;
    const float *kj = k + ((size_t)bh * T + j) * HS;

    float score = 0.0f;
    for (int d = 0; d < HS; d++)
        score += qi[d] * kj[d];

    att_bh[i * T + j] = score * (1.0f / sqrtf((float)HS));
}
