// style: from-scratch GPT inference repo, causal attention scores S = Q K^T * scale per (batch*head) on blockIdx.z, masked entries written as -inf with early return
// launch: grid cdiv(T, 16), cdiv(T, 16), B * NH block 16, 16
// sizes: B=2 NH=3 T=67 HS=40 scale=0.1581
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>
#include <math.h>

// q, k: (B, NH, T, HS) contiguous; S: (B, NH, T, T)
__global__ void attn_scores_causal(const float *q, const float *k, float *S,
                                   int B, int NH, int T, int HS, float scale)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x; // key position
    const int i = blockIdx.y * blockDim.y + threadIdx.y; // query position
    const int bh = blockIdx.z;                           // b * NH + h
    if (i >= T || j >= T || bh >= B * NH) return;

    float *srow = S + ((size_t)bh * T + i) * T;
    if (j > i) { srow[j] = -INFINITY; return; }

    const float *qi = q + ((size_t)bh * T + i) * HS;
    const float *kj = k + ((size_t)bh * T + j) * HS;
    float dot = 0.0f;
    for (int d = 0; d < HS; d++)
        dot += qi[d] * kj[d];
    srow[j] = dot * scale;
}
