// style: HuggingFace-layout attention in a hobby transformer repo, q/k kept as (B, T, NH, HS) (before any permute), query row on blockIdx.y, key on x, batch*head on z, masked scores set to -1e9f in an if/else, scale as float param
// launch: grid cdiv(T, 32), T, B * NH block 32
// sizes: B=2 T=67 NH=3 HS=37 scale=0.1644
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

// q, k : (B, T, NH, HS) contiguous
// scores: (B, NH, T, T)
__global__ void qk_scores_causal(const float *__restrict__ q, const float *__restrict__ k,
                                 float *__restrict__ scores, int B, int T, int NH, int HS,
                                 float scale)
{
    int t2 = blockIdx.x * blockDim.x + threadIdx.x;  // key index
    int t = blockIdx.y;                              // query index
    int bh = blockIdx.z;
    int b = bh / NH;
    int h = bh % NH;

    if (t2 < T && t < T && b < B) {
        size_t out_idx = (((size_t)b * NH + h) * T + t) * T + t2;
        if (t2 > t) {
            scores[out_idx] = -1e9f;
        } else {
            int row_stride = NH * HS;
            const float *q_vec = q + ((size_t)b * T + t) * row_stride + h * HS;
            const float *k_vec = k + ((size_t)b * T + t2) * row_stride + h * HS;
            float dot = 0.0f;
            for (int i = 0; i < HS; ++i) {
                dot += q_vec[i] * k_vec[i];
            }
            scores[out_idx] = dot * scale;
        }
    }
}
