// style: llm.c-flavoured attention pre-softmax scores on a 3-D grid (t2, t, b*NH+h), q/k in (B, NH, T, HS), scale passed in, -INFINITY written above the diagonal with an early return
// launch: grid cdiv(T, 16), cdiv(T, 16), B*NH block 16, 16
// sizes: B=2 NH=5 T=67 HS=24 scale=0.2041241
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <math.h>

__global__ void attn_scores_causal(float* preatt, const float* q, const float* k,
                                   int B, int NH, int T, int HS, float scale)
{
    int t2 = blockIdx.x * blockDim.x + threadIdx.x;   // key position
    int t  = blockIdx.y * blockDim.y + threadIdx.y;   // query position
    int bh = blockIdx.z;                               // b * NH + h
    if (t >= T || t2 >= T || bh >= B * NH) return;

    float* out = preatt + (size_t)bh * T * T;         // (B, NH, T, T)
    if (t2 > t) {
        out[t * T + t2] = -INFINITY;
        return;
    }

    const float* q_t  = q + ((size_t)bh * T + t)  * HS;
    const float* k_t2 = k + ((size_t)bh * T + t2) * HS;
    float val = 0.0f;
    for (int i = 0; i < HS; i++) {
        val += q_t[i] * k_t2[i];
    }
    out[t * T + t2] = val * scale;
}
